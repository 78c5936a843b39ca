import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, real, smallint, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, tstz, updatedAt } from './columns.js';
import { communityPosts } from './community.js';
import { users } from './identity.js';
import { batches } from './programs.js';

/**
 * AI usage counters, one row per provider + model + pipeline + program (batch null: no program).
 * Every provider call adds to its row in one upsert; reset-usage deletes the rows.
 */
export const aiUsage = pgTable(
  'ai_usage',
  {
    id: id(),
    provider: text().notNull(),
    model: text().notNull(),
    pipeline: text().notNull(),
    batchId: uuid().references(() => batches.id, { onDelete: 'cascade' }),
    calls: integer().notNull().default(0),
    failures: integer().notNull().default(0),
    /** HTTP attempts beyond the first (retries). */
    retries: integer().notNull().default(0),
    inputTokens: integer().notNull().default(0),
    outputTokens: integer().notNull().default(0),
    lastUsedAt: tstz('last_used_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique('ai_usage_key').on(t.provider, t.model, t.pipeline, t.batchId).nullsNotDistinct()],
);

/** Votes on a post's published AI answer (+1 / -1, one per user); a net of -2 unpublishes it. */
export const aiAnswerVotes = pgTable(
  'ai_answer_votes',
  {
    postId: uuid()
      .notNull()
      .references(() => communityPosts.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    value: smallint().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.postId, t.userId] }), check('ai_answer_votes_value_check', sql`${t.value} in (-1, 1)`)],
);

/**
 * One row per published AI answer (auto-approved or admin-approved): the confidence it was published
 * at and, if it was later unpublished (author: does not answer, or net votes <= -2), when and why.
 * The calibration report groups these by confidence band.
 */
export const aiAnswerOutcomes = pgTable(
  'ai_answer_outcomes',
  {
    id: id(),
    postId: uuid()
      .notNull()
      .references(() => communityPosts.id, { onDelete: 'cascade' }),
    batchId: uuid().references(() => batches.id),
    confidence: real(),
    /** auto (pipeline auto-approve) or admin (review approve). */
    publishedBy: text().notNull(),
    publishedAt: tstz('published_at').notNull(),
    demotedAt: tstz('demoted_at'),
    demotedReason: text(),
  },
  (t) => [index('ai_answer_outcomes_post_idx').on(t.postId, t.publishedAt), index('ai_answer_outcomes_batch_idx').on(t.batchId)],
);
