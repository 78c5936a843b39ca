import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid, vector } from 'drizzle-orm/pg-core';
import { createdAt, EMBEDDING_DIMENSIONS, id, tstz, tsvector, updatedAt, weightedTsvector } from './columns.js';
import {
  faqFlagType,
  faqPromotionStatus,
  faqReportStatus,
  faqReviewStatus,
  faqSource,
  freshnessTier,
  freshReviewVerdict,
} from './enums.js';
import { users } from './identity.js';
import { batches } from './programs.js';

export const faqs = pgTable(
  'faqs',
  {
    id: id(),
    batchId: uuid()
      .notNull()
      .references(() => batches.id),
    question: text().notNull(),
    answer: text().notNull(),
    /** Category slug within the program (see categories). */
    category: text(),
    reviewStatus: faqReviewStatus().notNull().default('approved'),
    flagType: faqFlagType(),
    flagReason: text(),
    lastCheckedAt: tstz('last_checked_at'),
    reviewCycle: integer().notNull().default(0),
    freshnessTier: freshnessTier().notNull().default('evergreen'),
    lastVerifiedDate: tstz('last_verified_date').notNull().defaultNow(),
    /** Follows the tier (FAQ_SEASONAL_DAYS, FAQ_VOLATILE_DAYS); null for evergreen (never due). */
    reviewIntervalDays: integer(),
    flaggedAt: tstz('flagged_at'),
    /** When the FAQ reached update_requested (by votes or by time). */
    escalatedAt: tstz('escalated_at'),
    source: faqSource().notNull().default('manual'),
    /** The post, insight or knowledge row this FAQ came from. */
    sourceId: uuid(),
    promotionStatus: faqPromotionStatus(),
    promotionEligibleAt: tstz('promotion_eligible_at'),
    objectionCount: integer().notNull().default(0),
    helpfulCount: integer().notNull().default(0),
    notHelpfulCount: integer().notNull().default(0),
    viewCount: integer().notNull().default(0),
    embedding: vector({ dimensions: EMBEDDING_DIMENSIONS }),
    embeddedAt: tstz('embedded_at'),
    /** The embedder (its model name) that computed `embedding`; another one re-embeds the row (search.embeddings-backfill). */
    embeddingModel: text('embedding_model'),
    searchVector: tsvector().generatedAlwaysAs(weightedTsvector('question', 'answer')),
    createdBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    updatedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('faqs_batch_status_idx').on(t.batchId, t.reviewStatus),
    index('faqs_last_checked_idx').on(t.reviewStatus, t.lastCheckedAt),
    index('faqs_promotion_idx').on(t.promotionStatus, t.promotionEligibleAt),
    // Dashboards: FAQs created in a range (analytics/).
    index('faqs_created_idx').on(t.createdAt, t.batchId, t.source),
    // FAQs the worker has not embedded yet, newest first (search/unembedded-faqs.ts: the duplicate check
    // and the FAQ-update proposals read them on every check). A handful of rows at any time: at 100,000
    // FAQs in one program the read took 28-35 ms as a scan, 0.03 ms through this index.
    index('faqs_unembedded_idx').on(t.batchId, t.createdAt).where(sql`${t.embedding} IS NULL`),
    // m = 48, ef_construction = 400: FAQs are embedded from question and answer, and long texts on one
    // topic sit in tight clusters the graph must keep links into; at 100k rows of real English words
    // (bench/search) ef_construction 160 left recall@5 at 0.874 / 0.936 (ef_search 60 / 100), 400 gave
    // 0.91-0.93 / 0.952-0.962 over three builds, for about twice the build time.
    index('faqs_embedding_hnsw_idx').using('hnsw', t.embedding.op('vector_cosine_ops')).with({ m: 48, ef_construction: 400 }),
    index('faqs_search_vector_idx').using('gin', t.searchVector),
    // The question's own words: hybrid search picks keyword candidates by title hits (hybrid-sql.ts). The
    // expression must stay exactly the one the search statement matches on.
    index('faqs_title_tsv_idx').using('gin', sql`to_tsvector('english'::regconfig, ${t.question})`),
  ],
);

export const faqRevisions = pgTable(
  'faq_revisions',
  {
    id: id(),
    faqId: uuid()
      .notNull()
      .references(() => faqs.id, { onDelete: 'cascade' }),
    editorId: uuid().references(() => users.id, { onDelete: 'set null' }),
    /** { field: { from, to } } for every field the update changed. */
    changes: jsonb().$type<Record<string, { from: unknown; to: unknown }>>().notNull(),
    /**
     * The FAQ's status before the edit: a revision made while it was a draft (or taking it back to
     * draft) holds draft text, which only staff may read, also after the FAQ is published.
     */
    statusBefore: faqReviewStatus('status_before'),
    createdAt: createdAt(),
  },
  (t) => [index('faq_revisions_faq_idx').on(t.faqId, t.createdAt)],
);

export const faqFeedback = pgTable(
  'faq_feedback',
  {
    id: id(),
    faqId: uuid()
      .notNull()
      .references(() => faqs.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    helpful: boolean().notNull(),
    comment: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('faq_feedback_faq_user_key').on(t.faqId, t.userId)],
);

export const faqReports = pgTable(
  'faq_reports',
  {
    id: id(),
    faqId: uuid()
      .notNull()
      .references(() => faqs.id, { onDelete: 'cascade' }),
    reporterId: uuid().references(() => users.id, { onDelete: 'set null' }),
    reason: text().notNull(),
    status: faqReportStatus().notNull().default('open'),
    resolvedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    resolvedAt: tstz('resolved_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('faq_reports_faq_idx').on(t.faqId),
    index('faq_reports_status_idx').on(t.status),
    // One open report per user per FAQ.
    uniqueIndex('faq_reports_open_per_reporter_key').on(t.faqId, t.reporterId).where(sql`${t.status} = 'open'`),
  ],
);

export const freshReviewVotes = pgTable(
  'fresh_review_votes',
  {
    id: id(),
    faqId: uuid()
      .notNull()
      .references(() => faqs.id, { onDelete: 'cascade' }),
    /** The FAQ's reviewCycle when the vote was cast. */
    cycle: integer().notNull(),
    voterId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    verdict: freshReviewVerdict().notNull(),
    suggestion: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('fresh_review_votes_faq_cycle_voter_key').on(t.faqId, t.cycle, t.voterId)],
);

export const freshReviewLogs = pgTable(
  'fresh_review_logs',
  {
    id: id(),
    faqId: uuid()
      .notNull()
      .references(() => faqs.id, { onDelete: 'cascade' }),
    cycle: integer().notNull(),
    /** flagged, verified, update_requested, escalated, dismissed, ... */
    action: text().notNull(),
    fromStatus: faqReviewStatus(),
    toStatus: faqReviewStatus(),
    actorId: uuid().references(() => users.id, { onDelete: 'set null' }),
    reason: text(),
    details: jsonb().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index('fresh_review_logs_faq_idx').on(t.faqId, t.createdAt)],
);
