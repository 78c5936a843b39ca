import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { ingestRecording } from './ingest.js';
import { derivedJobId, RecordingPayload } from './recording.js';

const INGEST_RETRY_LIMIT = 4;

/**
 * Ingests one provider recording: topic blacklist, user lookup, the meeting row (deduplicated on the
 * provider's meeting uuid by a unique index), transcript download, parsing, knowledge and insights.
 * The job id is fixed per event and meeting uuid, so duplicate deliveries collapse to one job while it
 * exists; the unique index is the guard beyond that.
 */
export const confIngestJob = defineJob({
  name: 'conf.ingest-recording',
  payload: RecordingPayload,
  // The heartbeat: a job whose worker was killed mid-download is retried within about 10 s plus the
  // supervision interval (JOB_SUPERVISE_INTERVAL_SECONDS) and the retry delay, not after its 10-minute
  // expiry; the retry resumes the meeting it left pending (ingestRecording).
  policy: {
    ...DEFAULT_POLICY,
    retryLimit: INGEST_RETRY_LIMIT,
    retryDelaySeconds: 30,
    retryBackoff: true,
    expireInSeconds: 10 * 60,
    heartbeatSeconds: 10,
  },
  policyFromConfig: (config) => ({ retryDelaySeconds: config.CONF_INGEST_RETRY_DELAY_SECONDS }),
  // A provider's duplicate deliveries share one job while it is kept (7 days); a replay by hand is queued
  // whatever an earlier delivery did (skipped, say, before its host connected): the meeting's unique uuid still
  // keeps one meeting per recording.
  jobId: (p) => (p.replay ? undefined : derivedJobId(`conf-ingest:${p.event}:${p.meetingUuid}`)),
  handler: (ctx, payload, meta) => ingestRecording(ctx, payload, { jobId: meta.id, finalAttempt: meta.retryCount >= INGEST_RETRY_LIMIT }),
});
