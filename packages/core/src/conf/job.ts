import { createHash } from 'node:crypto';
import { type Static, Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';

/** A recording the provider told us about (webhook, recording-event or backfill), normalised. */
export const RecordingPayload = T.Object({
  event: T.String({ maxLength: 100 }),
  sourcing: T.Union([T.Literal('webhook'), T.Literal('backfill')]),
  meetingUuid: T.String({ minLength: 1, maxLength: 200 }),
  meetingNumber: T.Optional(T.String({ maxLength: 100 })),
  hostId: T.Optional(T.String({ maxLength: 200 })),
  hostEmail: T.Optional(T.String({ maxLength: 320 })),
  topic: T.String({ maxLength: 2000 }),
  startTime: T.Optional(T.String({ maxLength: 64 })),
  durationMinutes: T.Optional(T.Integer({ minimum: 0 })),
  transcriptUrl: T.Optional(T.String({ maxLength: 4000 })),
});
export type RecordingPayload = Static<typeof RecordingPayload>;

/** A uuid-shaped id derived from a string: one job per (event, meeting uuid) while the job exists. */
export function derivedJobId(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

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
});

/** Re-processes a stored meeting (POST /conf/meetings/:id/transcript, POST /knowledge/process-meeting/:id). */
export const confProcessMeetingJob = defineJob({
  name: 'conf.process-meeting',
  payload: T.Object({ meetingId: T.String({ format: 'uuid' }) }),
  policy: { ...DEFAULT_POLICY, retryLimit: 3, retryDelaySeconds: 30, expireInSeconds: 10 * 60 },
});
