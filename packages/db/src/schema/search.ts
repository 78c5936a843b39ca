import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, tstz } from './columns.js';
import { unresolvedSearchStatus } from './enums.js';
import { faqs } from './faqs.js';
import { users } from './identity.js';
import { batches } from './programs.js';

/** One row per search request (cache hits included); deleted after 90 days by the retention job. */
export const searchLogs = pgTable(
  'search_logs',
  {
    // Time-ordered (UUIDv7, migration 0004): every search appends a row, and random v4 keys made each
    // insert dirty a random primary-key page (a full-page WAL image after each checkpoint).
    id: uuid('id').primaryKey().default(sql`uuid_v7()`),
    query: text().notNull(),
    normalizedQuery: text().notNull(),
    userId: uuid().references(() => users.id, { onDelete: 'set null' }),
    batchId: uuid().references(() => batches.id),
    resultCount: integer().notNull(),
    topResultId: uuid(),
    topSource: text(),
    cacheHit: boolean().notNull().default(false),
    degraded: boolean().notNull().default(false),
    latencyMs: integer(),
    /**
     * How many searches the row stands for: cache hits of the same search (program, user, query text,
     * results) within one flush interval share a row (log-buffer.ts), so a popular query answered from
     * the cache thousands of times a second costs a row per interval, not per hit. Misses: always 1.
     */
    count: integer().notNull().default(1),
    /**
     * Who searched, for counting distinct searchers (suggestions and trending publish a query only
     * once SEARCH_SUGGEST_MIN_USERS distinct users or clients searched it): `u:<user id>` when signed
     * in, else `a:` and a keyed hash of the client address (never the address itself).
     */
    clientKey: text(),
    createdAt: createdAt(),
  },
  // Trending and suggestions read one program's recent window: (batch_id, created_at) serves both and
  // appends like the log does. An index on the query text cost a collated comparison per tree level
  // on every search's insert and served neither (a LIKE prefix needs text_pattern_ops).
  (t) => [index('search_logs_created_at_idx').on(t.createdAt), index('search_logs_batch_created_idx').on(t.batchId, t.createdAt)],
);

export const unresolvedSearches = pgTable(
  'unresolved_searches',
  {
    id: id(),
    query: text().notNull(),
    normalizedQuery: text().notNull(),
    userId: uuid().references(() => users.id, { onDelete: 'set null' }),
    batchId: uuid().references(() => batches.id),
    /** How many times this open query was logged. */
    count: integer().notNull().default(1),
    status: unresolvedSearchStatus().notNull().default('open'),
    resolvedFaqId: uuid().references(() => faqs.id, { onDelete: 'set null' }),
    resolvedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    resolvedAt: tstz('resolved_at'),
    lastSeenAt: tstz('last_seen_at').notNull().defaultNow(),
    /**
     * Distinct users or clients (search client keys) that logged this open query, up to 16: the
     * public list shows a query once SEARCH_SUGGEST_MIN_USERS of them did.
     */
    clientKeys: text().array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('unresolved_searches_open_key')
      .on(sql`coalesce(${t.batchId}, '00000000-0000-0000-0000-000000000000'::uuid)`, t.normalizedQuery)
      .where(sql`${t.status} = 'open'`),
    index('unresolved_searches_status_idx').on(t.status, t.lastSeenAt),
  ],
);
