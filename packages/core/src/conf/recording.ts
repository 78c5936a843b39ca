import { createHash } from 'node:crypto';
import { type Static, Type as T } from '@sinclair/typebox';
import { storableText } from '../shared/text.js';

/** PostgreSQL's integer (the meeting's duration column). */
const INT_MAX = 2_147_483_647;

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
  durationMinutes: T.Optional(T.Integer({ minimum: 0, maximum: INT_MAX })),
  transcriptUrl: T.Optional(T.String({ maxLength: 4000 })),
  /** Replayed by an admin (POST /conf/recording-event): queued even while an earlier job of the event is kept. */
  replay: T.Optional(T.Literal(true)),
});
export type RecordingPayload = Static<typeof RecordingPayload>;

/**
 * A meeting's start time as a date PostgreSQL stores, else null: JavaScript parses years such as
 * -010000 or +275000 that a timestamptz column refuses.
 */
export function meetingStart(value: string | undefined): Date | null {
  if (!value) return null;
  const at = new Date(value);
  const year = at.getUTCFullYear();
  return Number.isNaN(at.getTime()) || year < 1 || year > 9999 ? null : at;
}

/** Text PostgreSQL can store (shared/text.ts); backfill.ts imports it from here. */
export { storableText };

/**
 * The provider's strings made storable before the job is queued. One unstorable character in one
 * event (a NUL in a topic) failed the job insert, and with it every event committed in the same
 * group: all of them answered 503, and the provider kept resending the bad one.
 */
export function storableRecording(p: RecordingPayload): RecordingPayload {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) out[k] = typeof v === 'string' ? storableText(v) : v;
  const clean = out as RecordingPayload;
  // The meeting's column is an integer: a duration past it (no meeting lasts 4,000 years) is dropped like a
  // malformed one (the event was acknowledged, then its meeting insert failed on every attempt).
  if (clean.durationMinutes !== undefined && !(clean.durationMinutes >= 0 && clean.durationMinutes <= INT_MAX))
    delete clean.durationMinutes;
  if (clean.startTime !== undefined && !meetingStart(clean.startTime)) delete clean.startTime;
  // The uuid is the meeting's identity: emptied by the cleaning, it is one again from a hash of the
  // original (two such meetings stay two).
  if (!clean.meetingUuid) clean.meetingUuid = `unstorable-${createHash('sha256').update(p.meetingUuid).digest('hex').slice(0, 32)}`;
  return clean;
}

/** A uuid-shaped id derived from a string: one job per (event, meeting uuid) while the job exists. */
export function derivedJobId(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
