import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, real, text, uniqueIndex, uuid, vector } from 'drizzle-orm/pg-core';
import { createdAt, EMBEDDING_DIMENSIONS, id, tstz, tsvector, updatedAt, weightedTsvector, weightedTsvectorLength } from './columns.js';
import { confInsightStatus, confMeetingStatus, confSourcing, knowledgeStatus } from './enums.js';
import { faqs } from './faqs.js';
import { users } from './identity.js';
import { batches } from './programs.js';

/**
 * An existing FAQ of the program whose question the row asks (its question or title through the
 * duplicate check's rule): the row proposes updating that FAQ rather than a new one
 * (packages/core/src/knowledge/faq-match.ts). Null: it would be a new FAQ.
 */
const faqUpdateProposal = () => ({
  proposedFaqId: uuid().references(() => faqs.id, { onDelete: 'set null' }),
  proposedFaqScore: real(),
});

export const confMeetings = pgTable(
  'conf_meetings',
  {
    id: id(),
    /** The provider's meeting uuid: unique, the deduplication key (numeric ids repeat for recurring meetings). */
    confMeetingId: text().notNull(),
    /** The provider's numeric meeting id, kept for display and API calls. */
    confMeetingNumber: text(),
    batchId: uuid().references(() => batches.id),
    userId: uuid().references(() => users.id, { onDelete: 'set null' }),
    hostEmail: text(),
    confUserId: text(),
    topic: text().notNull(),
    status: confMeetingStatus().notNull().default('pending'),
    sourcing: confSourcing().notNull(),
    insightCount: integer().notNull().default(0),
    startTime: tstz('start_time'),
    durationMinutes: integer(),
    transcriptText: text(),
    error: text(),
    payload: jsonb().$type<Record<string, unknown>>(),
    processedAt: tstz('processed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('conf_meetings_conf_meeting_id_key').on(t.confMeetingId),
    index('conf_meetings_batch_idx').on(t.batchId),
    index('conf_meetings_status_idx').on(t.status, t.createdAt),
  ],
);

export const confInsights = pgTable(
  'conf_insights',
  {
    id: id(),
    meetingId: uuid()
      .notNull()
      .references(() => confMeetings.id, { onDelete: 'cascade' }),
    batchId: uuid().references(() => batches.id),
    question: text().notNull(),
    answer: text().notNull(),
    /** The transcript line the answer comes from (speaker: text), its provenance. */
    context: text(),
    speaker: text(),
    /** That line's cue times, milliseconds from the start of the recording. */
    cueStartMs: integer(),
    cueEndMs: integer(),
    status: confInsightStatus().notNull().default('pending_review'),
    convertedFaqId: uuid().references(() => faqs.id, { onDelete: 'set null' }),
    ...faqUpdateProposal(),
    reviewedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: tstz('reviewed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('conf_insights_meeting_idx').on(t.meetingId),
    index('conf_insights_status_idx').on(t.status),
    // The FAQ foreign keys: deleting a FAQ (ON DELETE SET NULL) and "rows linked to FAQ X" look them up.
    // Partial: most rows link no FAQ.
    index('conf_insights_converted_faq_idx').on(t.convertedFaqId).where(sql`converted_faq_id IS NOT NULL`),
    index('conf_insights_proposed_faq_idx').on(t.proposedFaqId).where(sql`proposed_faq_id IS NOT NULL`),
  ],
);

/** Path B of ingestion: approved on creation, embedded inline, searchable at once. */
export const transcriptKnowledge = pgTable(
  'transcript_knowledge',
  {
    id: id(),
    meetingId: uuid().references(() => confMeetings.id, { onDelete: 'set null' }),
    batchId: uuid().references(() => batches.id),
    title: text().notNull(),
    content: text().notNull(),
    status: knowledgeStatus().notNull().default('approved'),
    promotedFaqId: uuid().references(() => faqs.id, { onDelete: 'set null' }),
    ...faqUpdateProposal(),
    reviewedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: tstz('reviewed_at'),
    embedding: vector({ dimensions: EMBEDDING_DIMENSIONS }),
    embeddedAt: tstz('embedded_at'),
    /** The embedder (its model name) that computed `embedding`; another one re-embeds the row (search.embeddings-backfill). */
    embeddingModel: text('embedding_model'),
    searchVector: tsvector().generatedAlwaysAs(weightedTsvector('title', 'content')),
    /** `length(search_vector)`: its average over a program's approved rows is the exact keyword ranking's BM25 average length. */
    searchLength: integer().generatedAlwaysAs(weightedTsvectorLength('title', 'content')),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('transcript_knowledge_batch_idx').on(t.batchId),
    index('transcript_knowledge_status_idx').on(t.status),
    index('transcript_knowledge_embedding_hnsw_idx').using('hnsw', t.embedding.op('vector_cosine_ops')),
    index('transcript_knowledge_search_vector_idx').using('gin', t.searchVector),
    // The title's own words: POST /search picks keyword candidates by title hits (search/text-sql.ts).
    index('transcript_knowledge_title_tsv_idx').using('gin', sql`to_tsvector('english'::regconfig, ${t.title})`),
    index('transcript_knowledge_promoted_faq_idx').on(t.promotedFaqId).where(sql`promoted_faq_id IS NOT NULL`),
    index('transcript_knowledge_proposed_faq_idx').on(t.proposedFaqId).where(sql`proposed_faq_id IS NOT NULL`),
    // POST /search's keyword list (search/text-sql.ts): the average length (index-only, a sample in id order), the rows not embedded yet.
    index('transcript_knowledge_search_length_idx').on(t.batchId, t.id, t.searchLength).where(sql`status = 'approved'`),
    index('transcript_knowledge_unembedded_idx').on(t.batchId).where(sql`embedding IS NULL`),
  ],
);

/** Knowledge drawn from documents and highly-voted community answers (the other half of the knowledge base). */
export const documentInsights = pgTable(
  'document_insights',
  {
    id: id(),
    batchId: uuid().references(() => batches.id),
    title: text().notNull(),
    content: text().notNull(),
    /** Where it came from: an uploaded document name, a URL, or community_post. */
    sourceType: text().notNull().default('document'),
    sourceRef: text(),
    status: knowledgeStatus().notNull().default('pending_review'),
    promotedFaqId: uuid().references(() => faqs.id, { onDelete: 'set null' }),
    ...faqUpdateProposal(),
    createdBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    reviewedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: tstz('reviewed_at'),
    embedding: vector({ dimensions: EMBEDDING_DIMENSIONS }),
    embeddedAt: tstz('embedded_at'),
    /** The embedder (its model name) that computed `embedding`; another one re-embeds the row (search.embeddings-backfill). */
    embeddingModel: text('embedding_model'),
    searchVector: tsvector().generatedAlwaysAs(weightedTsvector('title', 'content')),
    /** `length(search_vector)`: its average over a program's approved rows is the exact keyword ranking's BM25 average length. */
    searchLength: integer().generatedAlwaysAs(weightedTsvectorLength('title', 'content')),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('document_insights_batch_idx').on(t.batchId),
    index('document_insights_status_idx').on(t.status),
    index('document_insights_embedding_hnsw_idx').using('hnsw', t.embedding.op('vector_cosine_ops')),
    index('document_insights_search_vector_idx').using('gin', t.searchVector),
    index('document_insights_title_tsv_idx').using('gin', sql`to_tsvector('english'::regconfig, ${t.title})`),
    index('document_insights_promoted_faq_idx').on(t.promotedFaqId).where(sql`promoted_faq_id IS NOT NULL`),
    index('document_insights_proposed_faq_idx').on(t.proposedFaqId).where(sql`proposed_faq_id IS NOT NULL`),
    // POST /search's keyword list (search/text-sql.ts): the average length (index-only, a sample in id order), the rows not embedded yet.
    index('document_insights_search_length_idx').on(t.batchId, t.id, t.searchLength).where(sql`status = 'approved'`),
    index('document_insights_unembedded_idx').on(t.batchId).where(sql`embedding IS NULL`),
  ],
);
