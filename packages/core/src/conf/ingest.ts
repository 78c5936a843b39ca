import { confMeetings, users } from '@cfaq/db/schema/index';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { proposeFaqUpdates } from '../knowledge/faq-match.js';
import { lockProgramForWrite } from '../programs/lock.js';
import { resolveProgramId } from '../programs/resolve.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { ConfProviderError } from './client.js';
import { downloadTranscript, downloadUrl } from './download.js';
import { extractInsights, insightsRecord, insightsView, writeInsights } from './extract-insights.js';
import { confExtractInsightsJob } from './extract-insights-job.js';
import {
  chunkTranscript,
  embedKnowledgeChunks,
  MEETING_STATE_COLUMNS,
  markMeetingFailed,
  noteRetry,
  writeKnowledgeRows,
} from './knowledge-store.js';
import { activeAdmin } from './oauth.js';
import { meetingStart, type RecordingPayload, storableRecording } from './recording.js';
import type { InsightsStatus } from './shape.js';
import { withConfToken } from './tokens.js';
import { blacklistedBy, sanitizeTopic } from './topic.js';
import { type ParsedTranscript, parseTranscript, TranscriptError } from './transcript.js';

type Ctx = Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'clock' | 'log' | 'embedder' | 'jobs'>;

export type IngestResult =
  | { status: 'skipped'; reason: string; meetingId?: string }
  | {
      status: 'completed';
      meetingId: string;
      insightCount: number;
      knowledgeCount: number;
      insightsStatus: InsightsStatus;
      insightsError: string | null;
    }
  | { status: 'failed'; meetingId: string; reason: string };

interface MeetingKey {
  id: string;
  batchId: string | null;
  topic: string;
}

/**
 * Stores a parsed transcript: path B knowledge rows with inline embeddings, path A insights (AI), and the meeting completed with insightCount, all in one transaction that
 * only a meeting not already completed can pass (a racing run that lost finds 0 rows and rolls back).
 * The extraction's outcome is kept in `payload.insights` (the meeting's `insightsStatus` and
 * `insightsError`); a failed one queues conf.extract-insights in the same transaction, which runs
 * path A again with pg-boss's retries.
 */
export async function storeTranscript(ctx: Ctx, meeting: MeetingKey, transcript: ParsedTranscript): Promise<IngestResult> {
  const chunks = chunkTranscript(meeting.topic, transcript.segments);
  const vectors = await embedKnowledgeChunks(ctx, chunks);
  const extraction = await extractInsights(ctx, meeting, transcript);
  // "Update FAQ X" proposals: rows whose question (title) is an existing FAQ's (knowledge/faq-match.ts).
  const [knowledgeProposals, insightProposals] = await Promise.all([
    proposeFaqUpdates(
      ctx,
      meeting.batchId,
      chunks.map((c) => c.title),
    ),
    proposeFaqUpdates(
      ctx,
      meeting.batchId,
      extraction.insights.map((i) => i.question),
    ),
  ]);
  // A truncated or refused reply is not tried again: the same prompt gets the same answer.
  const retry = extraction.outcome === 'failed' && extraction.retryable !== false;
  const record = insightsRecord(extraction, retry);
  const result = await ctx.db
    .transaction(async (tx) => {
      // The meeting's program is locked until commit: a program deleted meanwhile (an upload racing
      // its delete) gets none of the meeting's knowledge or insights, and the store is a 404.
      if (meeting.batchId) await lockProgramForWrite(tx, meeting.batchId, { allowArchived: true });
      const knowledgeCount = await writeKnowledgeRows(tx, meeting, chunks, { vectors, model: ctx.embedder.model }, knowledgeProposals);
      const insightCount = await writeInsights(tx, meeting, extraction.insights, insightProposals);
      const [done] = await tx
        .update(confMeetings)
        .set({
          status: 'completed',
          insightCount,
          transcriptText: transcript.text,
          error: null,
          processedAt: sql`now()`,
          updatedAt: sql`now()`,
          payload: sql`coalesce(${confMeetings.payload}, '{}'::jsonb) || ${JSON.stringify({
            segments: transcript.segments,
            insights: record,
          })}::jsonb`,
        })
        .where(and(eq(confMeetings.id, meeting.id), sql`${confMeetings.status} <> 'completed'`))
        .returning({ id: confMeetings.id });
      if (!done) {
        tx.rollback();
      }
      if (retry) await ctx.jobs.send(confExtractInsightsJob, { meetingId: meeting.id }, { tx });
      return { knowledgeCount, insightCount };
    })
    .catch((err: unknown) => {
      if ((err as Error)?.name === 'TransactionRollbackError') return null;
      throw err;
    });
  if (!result) return { status: 'skipped', reason: 'already completed', meetingId: meeting.id };
  logPipelineStep(ctx.log, {
    action: 'conf_ingest',
    id: meeting.id,
    conf: null,
    verdict: 'completed',
    extra: { insights: result.insightCount, knowledge: result.knowledgeCount, insightsOutcome: extraction.outcome },
  });
  const view = insightsView(record);
  return {
    status: 'completed',
    meetingId: meeting.id,
    ...result,
    insightsStatus: view.insightsStatus as InsightsStatus,
    insightsError: view.insightsError,
  };
}

/**
 * storeTranscript for a run that must not leave its meeting pending for good: a failure (the embedder
 * or the database) is noted on the meeting and rethrown for the job's retry, and on the last attempt
 * (or with no retry to come, as an upload) it fails the meeting with the reason.
 */
export async function storeOrRetry(
  ctx: Ctx,
  meeting: MeetingKey,
  transcript: ParsedTranscript,
  opts: { finalAttempt?: boolean } = {},
): Promise<IngestResult> {
  try {
    return await storeTranscript(ctx, meeting, transcript);
  } catch (err) {
    const reason = `store: ${(err as Error).message}`;
    if (opts.finalAttempt === false) await noteRetry(ctx, meeting.id, reason);
    else await markMeetingFailed(ctx, meeting.id, reason);
    throw err;
  }
}

/**
 * The rule `completeConfConnect` (oauth.ts) applies to the connecting user, as a condition on the users
 * row: an admin (role read now), not under a suspension in force, with two-factor enabled when
 * ADMIN_2FA_REQUIRED. Only such a user's recordings become approved knowledge: a connection made
 * while an admin outlives a demotion or a suspension (the tokens stay stored), so the webhook checks
 * the host again at every event.
 */
const hostMayIngest = (ctx: Pick<CoreContext, 'config' | 'clock'>) => sql<boolean>`coalesce(${activeAdmin(ctx, ctx.clock.now())}, false)`;

interface HostUser {
  id: string;
  /** The user is an active admin now (hostMayIngest). */
  activeAdmin: boolean;
}

/**
 * Finds the connected user an event belongs to: by provider user id, else by host email (an active
 * admin first when several accounts carry that email). A provider id names its one account: a match
 * there that is no longer an active admin is returned as such, never traded for another user by email.
 */
async function findConnectedUser(ctx: Pick<CoreContext, 'db' | 'config' | 'clock'>, p: RecordingPayload): Promise<HostUser | null> {
  const columns = { id: users.id, activeAdmin: hostMayIngest(ctx) };
  if (p.hostId) {
    const [u] = await ctx.db
      .select(columns)
      .from(users)
      .where(and(eq(users.confUserId, p.hostId), eq(users.confConnected, true)));
    if (u) return u;
  }
  if (p.hostEmail) {
    const email = p.hostEmail.trim().toLowerCase();
    const [u] = await ctx.db
      .select(columns)
      .from(users)
      .where(and(eq(users.confConnected, true), sql`(lower(${users.confEmail}) = ${email} or ${users.email} = ${email})`))
      .orderBy(desc(columns.activeAdmin), users.createdAt)
      .limit(1);
    if (u) return u;
  }
  return null;
}

/**
 * Downloads and stores the transcript of a meeting row; failures mark it failed. A transient failure
 * (the provider down, a 5xx) rethrows for the job's retry, and until the last attempt the meeting
 * stays pending with the error noted: it is not failed while a retry is still coming.
 */
export async function fetchAndStore(
  ctx: Ctx,
  meeting: MeetingKey,
  ownerId: string,
  url: string,
  opts: { finalAttempt?: boolean } = {},
): Promise<IngestResult> {
  let raw: string;
  try {
    // Checked before the token is fetched: a refused URL spends no refresh.
    const checked = downloadUrl(ctx.config, url);
    raw = await withConfToken(ctx, ownerId, (token) => downloadTranscript(ctx.config, checked, token));
  } catch (err) {
    const reason = `download: ${(err as Error).message}`;
    const transient = err instanceof ConfProviderError && err.transient;
    if (transient && opts.finalAttempt === false) {
      await noteRetry(ctx, meeting.id, reason);
      throw err;
    }
    await markMeetingFailed(ctx, meeting.id, reason);
    if (transient) throw err;
    return { status: 'failed', meetingId: meeting.id, reason };
  }
  let parsed: ParsedTranscript;
  try {
    parsed = parseTranscript('vtt', raw);
  } catch (err) {
    if (!(err instanceof TranscriptError)) throw err;
    await markMeetingFailed(ctx, meeting.id, `${err.code}: ${err.message}`);
    return { status: 'failed', meetingId: meeting.id, reason: err.message };
  }
  return storeOrRetry(ctx, meeting, parsed, opts);
}

/**
 * The ingestion job: sanitise the topic and skip a blacklisted one, find the connected user, create
 * the meeting (pending, sourcing webhook or backfill) unless its uuid exists, then download, parse and
 * store. A retry of the same job (same job id, e.g. after the worker was killed mid-job) resumes its
 * own unfinished meeting; any other delivery of an existing meeting is skipped.
 */
export async function ingestRecording(
  ctx: Ctx,
  payload: RecordingPayload,
  meta: { jobId: string; finalAttempt?: boolean },
): Promise<IngestResult> {
  // Cleaned where it is queued; again here for a job queued before a rule was added (it would fail every attempt).
  const p = storableRecording(payload);
  const topic = sanitizeTopic(p.topic);
  const pattern = blacklistedBy(ctx.config, topic);
  if (pattern) {
    logPipelineStep(ctx.log, { action: 'conf_ingest', id: p.meetingUuid, conf: null, verdict: 'skipped_blacklist', extra: { pattern } });
    return { status: 'skipped', reason: `topic matches blacklist pattern ${pattern}` };
  }
  // Every skip is a pipeline step of its own line, as the spec's log rule asks of each step.
  const skipped = (verdict: string, reason: string, meetingId?: string): IngestResult => {
    logPipelineStep(ctx.log, {
      action: 'conf_ingest',
      id: p.meetingUuid,
      conf: null,
      verdict,
      ...(meetingId ? { extra: { meetingId } } : {}),
    });
    return { status: 'skipped', reason, ...(meetingId ? { meetingId } : {}) };
  };
  const user = await findConnectedUser(ctx, p);
  if (!user) return skipped('skipped_no_user', 'no user with a connected provider account for this host');
  if (!user.activeAdmin) {
    // Ignored as an unknown host is (no meeting, no knowledge): the host was demoted or suspended after
    // connecting. Logged, since the provider keeps sending this account's events until it is disconnected.
    logPipelineStep(ctx.log, {
      action: 'conf_ingest',
      id: p.meetingUuid,
      conf: null,
      verdict: 'skipped_host_not_admin',
      extra: { userId: user.id },
    });
    const reason = "the host's account is no longer an active admin (demoted or suspended)";
    // A retry of this job whose meeting an earlier try left pending (a failed download): failed now, so it
    // is not pending for good and an admin may re-process it.
    const [own] = await ctx.db.select(MEETING_STATE_COLUMNS).from(confMeetings).where(eq(confMeetings.confMeetingId, p.meetingUuid));
    if (own && own.status === 'pending' && own.payload?.jobId === meta.jobId) {
      await markMeetingFailed(ctx, own.id, reason);
      return { status: 'skipped', reason, meetingId: own.id };
    }
    return { status: 'skipped', reason };
  }
  if (!p.transcriptUrl) return skipped('skipped_no_transcript', 'the event carries no completed transcript file');

  const batchId = await resolveProgramId(ctx, null);
  const startTime = meetingStart(p.startTime);
  const [created] = await ctx.db
    .insert(confMeetings)
    .values({
      confMeetingId: p.meetingUuid,
      confMeetingNumber: p.meetingNumber ?? null,
      batchId,
      userId: user.id,
      hostEmail: p.hostEmail ?? null,
      confUserId: p.hostId ?? null,
      topic,
      status: 'pending',
      sourcing: p.sourcing,
      startTime,
      durationMinutes: p.durationMinutes ?? null,
      payload: { event: p.event, jobId: meta.jobId, transcriptUrl: p.transcriptUrl },
    })
    .onConflictDoNothing({ target: confMeetings.confMeetingId })
    .returning({ id: confMeetings.id, batchId: confMeetings.batchId, topic: confMeetings.topic });
  let meeting = created;
  if (!meeting) {
    const [existing] = await ctx.db.select(MEETING_STATE_COLUMNS).from(confMeetings).where(eq(confMeetings.confMeetingId, p.meetingUuid));
    if (!existing || existing.status === 'completed' || existing.payload?.jobId !== meta.jobId) {
      return skipped('skipped_duplicate', 'meeting already exists', existing?.id);
    }
    meeting = existing;
    ctx.log.info({ meetingId: existing.id }, '[conf] resuming an unfinished meeting of this job');
  }
  return fetchAndStore(ctx, meeting, user.id, p.transcriptUrl, { finalAttempt: meta.finalAttempt ?? true });
}
