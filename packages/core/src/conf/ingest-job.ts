import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { ingestRecording } from './ingest.js';
import { derivedJobId, RecordingPayload } from './recording.js';

/**
 * Ingests one provider recording: topic blacklist, user lookup, the meeting row (deduplicated on the
 * provider's meeting uuid by a unique index), transcript download, parsing, knowledge and insights.
 * The job id is fixed per event and meeting uuid, so duplicate deliveries collapse to one job while it
 * exists; the unique index is the guard beyond that.
 */
export const confIngestJob = defineJob({
  name: 'conf.ingest-recording',
  payload: RecordingPayload,
  policy: { ...DEFAULT_POLICY, retryLimit: 4, retryDelaySeconds: 30, retryBackoff: true, expireInSeconds: 10 * 60 },
  jobId: (p) => derivedJobId(`conf-ingest:${p.event}:${p.meetingUuid}`),
  handler: (ctx, payload, meta) => ingestRecording(ctx, payload, { jobId: meta.id }),
});
