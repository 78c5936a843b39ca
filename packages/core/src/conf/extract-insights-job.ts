import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { retryInsightExtraction } from './extract-insights.js';

const EXTRACT_RETRY_LIMIT = 3;

/**
 * Path A again for a completed meeting whose insight extraction failed (an AI call that failed after
 * its own retries). Queued by storeTranscript in the transaction that completes the meeting; retried
 * by pg-boss with backoff (1, 2, 4 minutes); only extraction runs, never the knowledge rows.
 */
export const confExtractInsightsJob = defineJob({
  name: 'conf.extract-insights',
  payload: T.Object({ meetingId: T.String({ format: 'uuid' }) }),
  policy: { ...DEFAULT_POLICY, retryLimit: EXTRACT_RETRY_LIMIT, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 10 * 60 },
  handler: (ctx, payload, meta) => retryInsightExtraction(ctx, payload.meetingId, { finalAttempt: meta.retryCount >= EXTRACT_RETRY_LIMIT }),
});
