import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { embedRow } from './embed-row.js';
import { EMBEDDED_TABLES } from './tables.js';

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
  batchSize: 20,
  handler: (ctx, payload) => embedRow(ctx, payload),
});
