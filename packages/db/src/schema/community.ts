import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, real, smallint, text, uuid, vector } from 'drizzle-orm/pg-core';
import { createdAt, EMBEDDING_DIMENSIONS, id, tstz, tsvector, updatedAt, weightedTsvector } from './columns.js';
import { aiAnswerSource, aiAnswerStatus, escalationStatus, postStatus } from './enums.js';
import { faqs } from './faqs.js';
import { users } from './identity.js';
import { batches } from './programs.js';

export const communityPosts = pgTable(
  'community_posts',
  {
    id: id(),
    /** Spec: indexed, default null; writes set the default program, the migration backfills. */
    batchId: uuid().references(() => batches.id),
    authorId: uuid().references(() => users.id, { onDelete: 'set null' }),
    title: text().notNull(),
    body: text().notNull(),
    status: postStatus().notNull().default('open'),
    upvotes: integer().notNull().default(0),
    downvotes: integer().notNull().default(0),
    commentCount: integer().notNull().default(0),
    acceptedCommentId: uuid(),
    convertedFaqId: uuid().references(() => faqs.id, { onDelete: 'set null' }),
    aiAnswer: text(),
    aiAnswerConfidence: real(),
    aiAnswerStatus: aiAnswerStatus(),
    aiAnswerSource: aiAnswerSource(),
    aiAnswerSuggestedAt: tstz('ai_answer_suggested_at'),
    aiAnswerReviewedAt: tstz('ai_answer_reviewed_at'),
    aiAnswerReviewedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    aiAnswerEscalatedAt: tstz('ai_answer_escalated_at'),
    aiAnswerEscalatedReason: text(),
    aiAnswerAttempts: integer().notNull().default(0),
    /** When an auto-answer run last claimed the post (the cooldown and the two-runs guard). */
    aiAnswerAttemptedAt: tstz('ai_answer_attempted_at'),
    /** Run id of the auto-answer run working on the post right now (cleared when it finishes). */
    aiAnswerClaim: uuid(),
    /** Knowledge source ids the answer was grounded in (staff-only until approved). */
    aiAnswerSources: text().array().notNull().default([]),
    /** Net votes on the published AI answer (ai_answer_votes). */
    aiAnswerScore: integer().notNull().default(0),
    /** The author marked the published AI answer as not answering the question. */
    aiAnswerNotHelpfulAt: tstz('ai_answer_not_helpful_at'),
    lastCheckedAt: tstz('last_checked_at'),
    escalationStatus: escalationStatus().notNull().default('none'),
    escalatedAt: tstz('escalated_at'),
    escalationResolvedAt: tstz('escalation_resolved_at'),
    escalationResolvedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    escalationNote: text(),
    /** The time trial: when the post, unanswered for the window, became pending (null: never). */
    pendingAt: tstz('pending_at'),
    /** The first user other than the author to comment after the post became pending (first_responder). */
    firstResponderId: uuid().references(() => users.id, { onDelete: 'set null' }),
    firstRespondedAt: tstz('first_responded_at'),
    answeredAt: tstz('answered_at'),
    embedding: vector({ dimensions: EMBEDDING_DIMENSIONS }),
    embeddedAt: tstz('embedded_at'),
    /** The embedder (its model name) that computed `embedding`; another one re-embeds the row (search.embeddings-backfill). */
    embeddingModel: text('embedding_model'),
    searchVector: tsvector().generatedAlwaysAs(weightedTsvector('title', 'body')),
    deletedAt: tstz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('community_posts_batch_idx').on(t.batchId),
    index('community_posts_status_idx').on(t.status, t.createdAt),
    index('community_posts_author_idx').on(t.authorId),
    index('community_posts_ai_status_idx').on(t.aiAnswerStatus),
    index('community_posts_escalation_idx').on(t.escalationStatus),
    // Dashboards (analytics/): every column they read, so a range of posts is an index-only scan of
    // its slice, never a read of the wide rows (embeddings, bodies). One for all programs, one per program.
    index('community_posts_analytics_idx').on(
      t.createdAt,
      t.batchId,
      t.deletedAt,
      t.status,
      t.answeredAt,
      t.aiAnswerStatus,
      t.aiAnswerReviewedAt,
      t.escalationStatus,
      t.authorId,
    ),
    index('community_posts_analytics_batch_idx').on(
      t.batchId,
      t.createdAt,
      t.deletedAt,
      t.status,
      t.answeredAt,
      t.aiAnswerStatus,
      t.aiAnswerReviewedAt,
      t.escalationStatus,
      t.authorId,
    ),
    // m = 32, ef_construction = 160: at 100k posts of real English words (bench/search) recall@5 0.980
    // at ef_search 100 (m = 48: 0.988) for a vector sub-query about 0.5 ms faster and a smaller index.
    index('community_posts_embedding_hnsw_idx').using('hnsw', t.embedding.op('vector_cosine_ops')).with({ m: 32, ef_construction: 160 }),
    index('community_posts_search_vector_idx').using('gin', t.searchVector),
    // The title's own words: hybrid search picks keyword candidates by title hits (hybrid-sql.ts). The
    // expression must stay exactly the one the search statement matches on.
    index('community_posts_title_tsv_idx').using('gin', sql`to_tsvector('english'::regconfig, ${t.title})`),
  ],
);

export const comments = pgTable(
  'comments',
  {
    id: id(),
    postId: uuid()
      .notNull()
      .references(() => communityPosts.id, { onDelete: 'cascade' }),
    authorId: uuid().references(() => users.id, { onDelete: 'set null' }),
    body: text().notNull(),
    upvotes: integer().notNull().default(0),
    downvotes: integer().notNull().default(0),
    isAccepted: boolean().notNull().default(false),
    isVerified: boolean().notNull().default(false),
    verifiedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    verifiedAt: tstz('verified_at'),
    /** "Does not answer": the comment was marked as not answering the question (see README). */
    dna: boolean().notNull().default(false),
    dnaBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    dnaAt: tstz('dna_at'),
    deletedAt: tstz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('comments_post_idx').on(t.postId, t.createdAt),
    index('comments_author_idx').on(t.authorId),
    // Dashboards: comments of a range, index-only (analytics/).
    index('comments_analytics_idx').on(t.createdAt, t.deletedAt, t.postId, t.authorId, t.isAccepted),
  ],
);

/**
 * The history of a post's escalation and time trial: escalated, resolved, dismissed (escalationStatus
 * moves), pending (the time trial started) and first_responder (its winner). Staff only.
 */
export const postEscalationLogs = pgTable(
  'post_escalation_logs',
  {
    id: id(),
    postId: uuid()
      .notNull()
      .references(() => communityPosts.id, { onDelete: 'cascade' }),
    batchId: uuid().references(() => batches.id),
    action: text().notNull(),
    fromStatus: text(),
    toStatus: text(),
    /** null: the escalation job. */
    actorId: uuid().references(() => users.id, { onDelete: 'set null' }),
    reason: text(),
    details: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [index('post_escalation_logs_created_idx').on(t.createdAt), index('post_escalation_logs_post_idx').on(t.postId, t.createdAt)],
);

/** One vote per user per post; value +1 or -1. */
export const postVotes = pgTable(
  'post_votes',
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
  (t) => [
    primaryKey({ columns: [t.postId, t.userId] }),
    index('post_votes_user_idx').on(t.userId),
    check('post_votes_value_check', sql`${t.value} in (-1, 1)`),
  ],
);

export const commentVotes = pgTable(
  'comment_votes',
  {
    commentId: uuid()
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    value: smallint().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.commentId, t.userId] }),
    index('comment_votes_user_idx').on(t.userId),
    check('comment_votes_value_check', sql`${t.value} in (-1, 1)`),
  ],
);
