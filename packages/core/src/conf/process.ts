import { confMeetings } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { fetchAndStore, type IngestResult, storeOrRetry } from './ingest.js';
import { MEETING_STATE_COLUMNS, markMeetingFailed, storedSegments } from './knowledge-store.js';
import { segmentsToText } from './vtt.js';

type Ctx = Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'clock' | 'log' | 'embedder' | 'jobs'>;

/**
 * The re-process job: a pending meeting is stored again from the transcript kept by its earlier run,
 * or downloaded again when it has none (a download that failed before).
 */
export async function processMeeting(ctx: Ctx, meetingId: string, opts: { finalAttempt?: boolean } = {}): Promise<IngestResult> {
  const [m] = await ctx.db
    .select({ ...MEETING_STATE_COLUMNS, userId: confMeetings.userId })
    .from(confMeetings)
    .where(eq(confMeetings.id, meetingId));
  if (!m) return { status: 'skipped', reason: 'meeting not found' };
  if (m.status !== 'pending') return { status: 'skipped', reason: `meeting is ${m.status}`, meetingId };
  const segments = storedSegments(m.payload);
  if (segments && segments.length > 0) return storeOrRetry(ctx, m, { segments, text: segmentsToText(segments) }, opts);
  const url = typeof m.payload?.transcriptUrl === 'string' ? m.payload.transcriptUrl : null;
  if (url && m.userId) return fetchAndStore(ctx, m, m.userId, url, opts);
  const reason = 'no stored transcript and nothing to download';
  await markMeetingFailed(ctx, m.id, reason);
  return { status: 'failed', meetingId, reason };
}
