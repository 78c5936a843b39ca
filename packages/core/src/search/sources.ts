import { PUBLIC_FAQ_SQL } from '../faqs/visibility.js';

/** The tables the hybrid statement searches, each a `source` tag in the results. */
export type SearchSource = 'faq' | 'community';

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
  },
  community: {
    source: 'community',
    alias: 'p',
    table: 'community_posts',
    title: 'title',
    titleVector: "to_tsvector('english'::regconfig, title)",
    body: 'body',
    visible: 'batch_id = $3 AND deleted_at IS NULL',
  },
};
