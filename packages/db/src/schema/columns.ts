import { sql } from 'drizzle-orm';
import { customType, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Embedding width fixed by the spec (768) and shared by every vector column. */
export const EMBEDDING_DIMENSIONS = 768;

/** A generated full-text column; drizzle has no native tsvector type. */
export const tsvector = customType<{ data: string }>({
  dataType() {
    return 'tsvector';
  },
});

/**
 * A 64-bit transaction id. `streamXid()` is the id of the transaction that wrote the row: the order of
 * the notification stream, which sends a row only once every transaction with a lower id has ended
 * (packages/core/src/notifications/stream.ts).
 */
export const xid8 = customType<{ data: string }>({
  dataType() {
    return 'xid8';
  },
});
export const streamXid = () => xid8('stream_xid').notNull().default(sql`pg_current_xact_id()`);

export const id = () => uuid('id').primaryKey().defaultRandom();
export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp('updated_at', { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());
export const tstz = (name: string) => timestamp(name, { withTimezone: true });

/** The text-search configuration used by every generated column and every query against it. */
export const TEXT_SEARCH_CONFIG = 'english';

/** Weighted document vector: title-like text weighs A, body text B. */
const weightedTsvectorSql = (title: string, body: string) =>
  `setweight(to_tsvector('${TEXT_SEARCH_CONFIG}', coalesce(${title}, '')), 'A') || setweight(to_tsvector('${TEXT_SEARCH_CONFIG}', coalesce(${body}, '')), 'B')`;
export const weightedTsvector = (title: string, body: string) => sql.raw(weightedTsvectorSql(title, body));

/**
 * The number of distinct words of `weightedTsvector(title, body)` (its `length()`): BM25's document
 * length, stored where POST /search averages it over a program's rows (search/sources.ts).
 */
export const weightedTsvectorLength = (title: string, body: string) => sql.raw(`length(${weightedTsvectorSql(title, body)})`);
