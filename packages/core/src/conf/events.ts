import type { CoreContext } from '../context.js';
import { AppError, badRequest, Code, invalidField, unauthorized, unavailable } from '../errors/index.js';
import { transcriptFile } from './client.js';
import { confIngestJob } from './ingest-job.js';
import { type RecordingPayload, storableRecording } from './recording.js';
import type { WebhookAnswer } from './shape.js';
import { urlValidationResponse, verifyWebhookSignature } from './signature.js';

/** The events that carry a transcript: the primary trigger and the fallback. */
export const RECORDING_EVENTS = ['recording.transcript_completed', 'recording.completed'] as const;

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * A provider event body as the job's payload. Only the fields the service uses are read (topic, ids,
 * host, the transcript file); a missing meeting uuid is a 400 naming the field.
 */
export function recordingPayloadOf(body: Record<string, unknown>, sourcing: 'webhook' | 'backfill'): RecordingPayload {
  const event = str(body.event) as string;
  const payload = body.payload as Record<string, unknown> | undefined;
  const object = (payload?.object ?? null) as Record<string, unknown> | null;
  if (!object || typeof object !== 'object') throw invalidField('body.payload.object', 'is required for recording events');
  const uuid = str(object.uuid);
  if (!uuid) throw invalidField('body.payload.object.uuid', 'is required (the meeting uuid)');
  if (uuid.length > 200) throw invalidField('body.payload.object.uuid', 'is too long');
  const files = Array.isArray(object.recording_files) ? (object.recording_files as Record<string, unknown>[]) : [];
  const transcript = transcriptFile(
    files
      .filter((f) => f && typeof f.download_url === 'string' && typeof f.file_type === 'string')
      .map((f) => ({
        fileType: f.file_type as string,
        downloadUrl: f.download_url as string,
        ...(typeof f.status === 'string' ? { status: f.status } : {}),
      })),
  );
  const hostId = str(object.host_id);
  const hostEmail = str(object.host_email) ?? str(payload?.host_email);
  const startTime = str(object.start_time);
  const number = object.id === undefined || object.id === null ? undefined : String(object.id);
  return {
    event,
    sourcing,
    meetingUuid: uuid,
    topic: typeof object.topic === 'string' ? object.topic.slice(0, 2000) : '',
    ...(number ? { meetingNumber: number.slice(0, 100) } : {}),
    ...(hostId ? { hostId: hostId.slice(0, 200) } : {}),
    ...(hostEmail ? { hostEmail: hostEmail.slice(0, 320) } : {}),
    ...(startTime ? { startTime: startTime.slice(0, 64) } : {}),
    ...(typeof object.duration === 'number' && Number.isInteger(object.duration) && object.duration >= 0
      ? { durationMinutes: object.duration }
      : {}),
    ...(transcript && transcript.downloadUrl.length <= 4000 ? { transcriptUrl: transcript.downloadUrl } : {}),
  };
}

/**
 * Accepts a recording event: queues its ingestion job and answers `{received: true}` once the job is
 * committed (a provider's repeated delivery joins the job of the first; an admin's `replay` is a job of its own). A database failure throws (the route answers 503, and the provider retries). Events other
 * than the recording ones are acknowledged and ignored.
 */
export async function acceptRecordingEvent(
  ctx: Pick<CoreContext, 'jobs' | 'log'>,
  body: Record<string, unknown>,
  opts: { replay?: boolean } = {},
): Promise<WebhookAnswer> {
  const event = str(body.event);
  if (!event) throw invalidField('body.event', 'is required');
  if (!(RECORDING_EVENTS as readonly string[]).includes(event)) {
    ctx.log.info({ event }, '[conf] event ignored');
    return { received: true, ignored: true };
  }
  const payload = storableRecording(recordingPayloadOf(body, 'webhook'));
  if (opts.replay) payload.replay = true;
  try {
    await ctx.jobs.send(confIngestJob, payload);
  } catch (err) {
    ctx.log.error({ err, event }, '[conf] could not queue the event');
    throw unavailable(Code.QUEUE_UNAVAILABLE, 'The event could not be stored; retry later');
  }
  return { received: true };
}

/** The missing webhook secret is logged once per process, not once per refused request. */
let warnedUnconfigured = false;

/**
 * POST /conf/webhook: the signature (over the raw bytes, constant time, 300 s window) is checked before
 * anything else, including `endpoint.url_validation`, so the challenge is never a signing oracle.
 * Without CONF_WEBHOOK_SECRET_TOKEN the endpoint is closed in production (503) and, elsewhere, accepts
 * unsigned recording events but never answers a validation challenge.
 */
export async function handleConfWebhook(
  ctx: Pick<CoreContext, 'jobs' | 'log' | 'config' | 'clock'>,
  req: { rawBody: Buffer; signature: string | undefined; timestamp: string | undefined },
): Promise<WebhookAnswer> {
  const secret = ctx.config.CONF_WEBHOOK_SECRET_TOKEN;
  if (secret) {
    const check = verifyWebhookSignature({
      secret,
      rawBody: req.rawBody,
      signature: req.signature,
      timestamp: req.timestamp,
      nowMs: ctx.clock.now().getTime(),
    });
    if (!check.ok) throw unauthorized(`Webhook signature rejected (${check.reason})`, Code.INVALID_SIGNATURE);
  } else if (ctx.config.NODE_ENV === 'production') {
    if (!warnedUnconfigured) {
      warnedUnconfigured = true;
      ctx.log.error('[conf] CONF_WEBHOOK_SECRET_TOKEN is not set: every webhook is refused (production fails closed)');
    }
    // The caller is not told which setting is missing.
    throw unavailable(Code.WEBHOOK_NOT_CONFIGURED, 'Webhooks are not accepted here yet; retry later');
  }
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    throw badRequest(Code.INVALID_JSON, 'The body is not valid JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b.event === 'endpoint.url_validation') {
    if (!secret) throw unavailable(Code.WEBHOOK_NOT_CONFIGURED, 'Webhook validation is not available here yet');
    const plainToken = str((b.payload as Record<string, unknown> | undefined)?.plainToken);
    if (!plainToken || plainToken.length > 512) throw invalidField('body.payload.plainToken', 'is required (1-512 characters)');
    return urlValidationResponse(secret, plainToken);
  }
  try {
    return await acceptRecordingEvent(ctx, b);
  } catch (err) {
    // A signed event the service cannot use (no meeting uuid, no object): the provider retries
    // anything but a 2xx, and this one can never succeed, so it is acknowledged and left (spec,
    // Errors 1: the provider gets 200 received = true; processing failures do not change it).
    if (!(err instanceof AppError) || err.status !== 400) throw err;
    ctx.log.warn({ event: b.event, problem: err.message }, '[conf] signed event not usable; acknowledged and ignored');
    return { received: true, ignored: true };
  }
}
