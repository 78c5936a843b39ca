import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { processMeeting } from './process.js';

const PROCESS_RETRY_LIMIT = 3;

/** Re-processes a stored meeting (POST /conf/meetings/:id/transcript, POST /knowledge/process-meeting/:id). */
export const confProcessMeetingJob = defineJob({
  name: 'conf.process-meeting',
  payload: T.Object({ meetingId: T.String({ format: 'uuid' }) }),
  policy: { ...DEFAULT_POLICY, retryLimit: PROCESS_RETRY_LIMIT, retryDelaySeconds: 30, expireInSeconds: 10 * 60 },
  handler: (ctx, payload, meta) => processMeeting(ctx, payload.meetingId, { finalAttempt: meta.retryCount >= PROCESS_RETRY_LIMIT }),
});
