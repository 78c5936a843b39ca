/** Tables whose rows carry an embedding and a generated tsvector. */
export const EMBEDDED_TABLES = ['faqs', 'community_posts', 'transcript_knowledge', 'document_insights'] as const;
export type EmbeddedTable = (typeof EMBEDDED_TABLES)[number];
