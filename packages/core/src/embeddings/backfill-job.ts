import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { backfillEmbeddings } from './embed-row.js';

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
  // And every 15 minutes: a row whose embed-row job used up its retries while the embedder was down
  // stayed out of the vector search until the next worker start. The count of stale rows is one scan
  // of each embedded table; a run with none to embed does nothing else.
  schedule: () => ({ everyMinutes: 15 }),
  // The job's signal stops it between batches when the worker stops (it ran on past the stop and was
  // failed by pg-boss after its connection had closed, an error in the log).
  handler: async (ctx, _p, meta) => {
    await backfillEmbeddings(ctx, { signal: meta.signal });
  },
});
