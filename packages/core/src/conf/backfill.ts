import { confMeetings, users } from '@cfaq/db/schema/index';
import { eq, inArray } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { invalidField } from '../errors/index.js';
import { ConfProviderError, listRecordings, providerProblem, requireConfClient, transcriptFile } from './client.js';
import { confIngestJob } from './ingest-job.js';
import { storableRecording, storableText } from './recording.js';
import type { ConfBackfillResult } from './shape.js';
import { confNotConnected, withConfToken } from './tokens.js';

type Ctx = Pick<CoreContext, 'db' | 'config' | 'secrets' | 'clock' | 'log' | 'jobs'>;

/** The widest range one backfill may cover. */
export const BACKFILL_MAX_DAYS = 180;
/** The provider answers at most one month of recordings per call. */
const WINDOW_DAYS = 30;
const DAY = 86_400_000;

const parseDate = (value: string, field: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw invalidField(`query.${field}`, 'must be a date (YYYY-MM-DD)');
  }
  const d = new Date(`${value}T00:00:00Z`);
  if (d.toISOString().slice(0, 10) !== value) throw invalidField(`query.${field}`, 'is not a calendar date');
  return d;
};

/**
 * POST /conf/auth/backfill: lists the caller's cloud recordings between two dates (inclusive, at most
 * 180 days, not in the future) from the provider's API, one month per call, and queues the ingestion
 * job of each recording with a transcript (duplicates collapse on the job id and the meeting uuid).
 * Not connected, or stored tokens that no longer decrypt (ENCRYPTION_KEY changed), is 422 CONF_NOT_CONNECTED.
 */
export async function backfillRecordings(ctx: Ctx, userId: string, q: { fromDate: string; toDate: string }): Promise<ConfBackfillResult> {
  const from = parseDate(q.fromDate, 'fromDate');
  const to = parseDate(q.toDate, 'toDate');
  if (to < from) throw invalidField('query.toDate', 'must not be before fromDate');
  if (from.getTime() > ctx.clock.now().getTime()) throw invalidField('query.fromDate', 'must not be in the future');
  if ((to.getTime() - from.getTime()) / DAY + 1 > BACKFILL_MAX_DAYS) {
    throw invalidField('query.toDate', `the range may cover at most ${BACKFILL_MAX_DAYS} days`);
  }
  // Without the app's credentials the integration is off, whatever tokens an earlier setup left: say so (422), as connect does.
  requireConfClient(ctx.config);
  const [user] = await ctx.db
    .select({ connected: users.confConnected, confUserId: users.confUserId, confEmail: users.confEmail })
    .from(users)
    .where(eq(users.id, userId));
  if (!user?.connected) throw confNotConnected();
  const meetings = [];
  for (let start = from.getTime(); start <= to.getTime(); start += WINDOW_DAYS * DAY) {
    const end = Math.min(to.getTime(), start + (WINDOW_DAYS - 1) * DAY);
    const a = new Date(start).toISOString().slice(0, 10);
    const b = new Date(end).toISOString().slice(0, 10);
    try {
      meetings.push(...(await withConfToken(ctx, userId, (token) => listRecordings(ctx.config, token, a, b))));
    } catch (err) {
      // The provider down is 502 CONF_PROVIDER_ERROR; this service's client credentials refused, 502
      // CONF_CLIENT_REJECTED (the tokens are kept). Tokens that no longer decrypt are 422 CONF_NOT_CONNECTED (tokens.ts).
      if (err instanceof ConfProviderError) throw providerProblem(err);
      throw err;
    }
  }
  // The uuid as it is stored (storableText): the lookup below compares it with stored ones.
  const withTranscript = meetings.filter((m) => transcriptFile(m.files)).map((m) => ({ ...m, uuid: storableText(m.uuid) }));
  const existing = withTranscript.length
    ? new Set(
        (
          await ctx.db
            .select({ id: confMeetings.confMeetingId })
            .from(confMeetings)
            .where(
              inArray(
                confMeetings.confMeetingId,
                withTranscript.map((m) => m.uuid),
              ),
            )
        ).map((r) => r.id),
      )
    : new Set<string>();
  let queued = 0;
  for (const m of withTranscript) {
    if (existing.has(m.uuid)) continue;
    const file = transcriptFile(m.files);
    const hostId = (m.hostId ?? user.confUserId ?? '').slice(0, 200);
    const id = await ctx.jobs.send(
      confIngestJob,
      storableRecording({
        event: 'backfill',
        sourcing: 'backfill',
        meetingUuid: m.uuid.slice(0, 200),
        topic: m.topic.slice(0, 2000),
        ...(m.id ? { meetingNumber: m.id.slice(0, 100) } : {}),
        ...(hostId ? { hostId } : {}),
        ...(user.confEmail ? { hostEmail: user.confEmail.slice(0, 320) } : {}),
        ...(m.startTime ? { startTime: m.startTime.slice(0, 64) } : {}),
        ...(m.durationMinutes !== null && m.durationMinutes >= 0 ? { durationMinutes: Math.floor(m.durationMinutes) } : {}),
        ...(file && file.downloadUrl.length <= 4000 ? { transcriptUrl: file.downloadUrl } : {}),
      }),
    );
    if (id) queued++;
  }
  return {
    fromDate: q.fromDate,
    toDate: q.toDate,
    recordings: meetings.length,
    withTranscript: withTranscript.length,
    queued,
    alreadyPresent: existing.size,
  };
}
