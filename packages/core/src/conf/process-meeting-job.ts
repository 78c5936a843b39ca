import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { processMeeting } from './process.js';

/** Re-processes a stored meeting (POST /conf/meetings/:id/transcript, POST /knowledge/process-meeting/:id). */
export const confProcessMeetingJob = defineJob({
  name: 'conf.process-meeting',
  payload: T.Object({ meetingId: T.String({ format: 'uuid' }) }),
  policy: { ...DEFAULT_POLICY, retryLimit: 3, retryDelaySeconds: 30, expireInSeconds: 10 * 60 },
  handler: (ctx, payload) => processMeeting(ctx, payload.meetingId),
});
