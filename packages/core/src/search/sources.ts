import { PUBLIC_FAQ_SQL } from '../faqs/visibility.js';

/**
 * The tables the hybrid statement searches, each a `source` tag in the results: the spec's two (FAQs
 * and community posts) and the knowledge base (TranscriptKnowledge and DocumentInsight rows, the same
 * tags GET /knowledge/search reports as `sourceType`).
 */
export type SearchSource = 'faq' | 'community' | 'transcript_knowledge' | 'document_insight';

/** The knowledge base's sources: approved rows of the program only (pending, rejected and promoted rows never). */
export const KNOWLEDGE_SOURCES = ['transcript_knowledge', 'document_insight'] as const satisfies readonly SearchSource[];

/**
 * What POST /search fuses: the spec's four sub-queries over FAQs and posts, plus a vector and a keyword
 * list (5 rows each) per knowledge table. RRF (k = 60), the fixed filter and the 5 results apply to
 * the union; a knowledge row only takes a place by out-ranking FAQs and posts, so a program without
 * knowledge rows gets exactly the spec's FAQ/post ranking.
 */
export const HYBRID_SEARCH_SOURCES = ['faq', 'community', ...KNOWLEDGE_SOURCES] as const satisfies readonly SearchSource[];

export interface SourceTable {
  source: SearchSource;
  alias: string;
  table: string;
  title: string;
  /** The title's own tsvector expression, as its GIN expression index declares it. */
  titleVector: string;
  body: string;
  /** Public visibility within program $3. */
  visible: string;
  /**
   * Whether the keyword list beside a vector list copies and scores only candidates holding a strong
   * query word (text-sql.ts), counting each word's rows through the GIN index first. The knowledge tables, small and always
   * ranked exactly over every matching row (hundreds on a common word), gain from it; FAQs and posts,
   * ranked exactly only while few rows match, lose: there counting among those few costs less than
   * the index count's heap visits (bench/search: two rare words, 3-12 % more a statement).
   */
  gateWeakRows: boolean;
  /**
   * A stored `length(search_vector)` column (migration 0034) with an index over the visible rows: in
   * exact mode (every matching row a candidate) BM25's average document length is then the program's
   * visible rows' (the collection average; a sample of LENGTH_SAMPLE_ROWS beyond that many), read
   * index-only, so the keyword list beside a vector list need not read the rows it cannot keep.
   * Otherwise, and without one, it is the candidates' average (FAQs and posts: their visible rows are
   * too many to average per search, and their candidates are read anyway).
   */
  lengthColumn?: string;
}

export const SOURCE_TABLES: Readonly<Record<SearchSource, SourceTable>> = {
  faq: {
    source: 'faq',
    alias: 'f',
    table: 'faqs',
    title: 'question',
    titleVector: "to_tsvector('english'::regconfig, question)",
    body: 'answer',
    visible: `batch_id = $3 AND ${PUBLIC_FAQ_SQL}`,
    gateWeakRows: false,
  },
  community: {
    source: 'community',
    alias: 'p',
    table: 'community_posts',
    title: 'title',
    titleVector: "to_tsvector('english'::regconfig, title)",
    body: 'body',
    visible: 'batch_id = $3 AND deleted_at IS NULL',
    gateWeakRows: false,
  },
  transcript_knowledge: {
    source: 'transcript_knowledge',
    alias: 'tk',
    table: 'transcript_knowledge',
    title: 'title',
    titleVector: "to_tsvector('english'::regconfig, title)",
    body: 'content',
    visible: "batch_id = $3 AND status = 'approved'",
    gateWeakRows: true,
    lengthColumn: 'search_length',
  },
  document_insight: {
    source: 'document_insight',
    alias: 'di',
    table: 'document_insights',
    title: 'title',
    titleVector: "to_tsvector('english'::regconfig, title)",
    body: 'content',
    visible: "batch_id = $3 AND status = 'approved'",
    gateWeakRows: true,
    lengthColumn: 'search_length',
  },
};
