import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';

/** Tables whose rows carry an embedding and a generated tsvector. */
export const EMBEDDED_TABLES = ['faqs', 'community_posts', 'transcript_knowledge', 'document_insights'] as const;
export type EmbeddedTable = (typeof EMBEDDED_TABLES)[number];

/**
 * Computes the embedding of one row after it is created or its text changes. Sent by content
 * services in the same transaction as the write; never computed inside the request.
 */
export const embedRowJob = defineJob({
  name: 'search.embed-row',
  payload: T.Object({
    table: T.Union(EMBEDDED_TABLES.map((t) => T.Literal(t))),
    id: T.String({ format: 'uuid' }),
  }),
  policy: { ...DEFAULT_POLICY, retryLimit: 5, retryDelaySeconds: 10, expireInSeconds: 5 * 60 },
  singletonKey: (p) => `${p.table}:${p.id}`,
});

/**
 * Embeds every row that has no embedding or one from another embedder (after EMBEDDER changes), in
 * batches that each commit: queued by the worker at every start, and resumable (a restart picks up
 * the rows still stale). Progress goes to the log. One at a time (singleton).
 */
export const embeddingsBackfillJob = defineJob({
  name: 'search.embeddings-backfill',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 3, retryDelaySeconds: 30, expireInSeconds: 4 * 60 * 60 },
  singletonKey: () => 'all',
  runOnStart: true,
});
