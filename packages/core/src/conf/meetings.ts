import { confInsights, confMeetings, transcriptKnowledge, users } from '@cfaq/db/schema/index';
import { and, count, desc, eq, inArray, max, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, conflict, notFound } from '../errors/index.js';
import { inLiveProgram } from '../programs/live.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { type InsightsRecord, insightsView } from './extract-insights.js';
import { confIngestJob } from './ingest-job.js';
import { confConnection } from './oauth.js';
import { confProcessMeetingJob } from './process-meeting-job.js';
import type { ConfHealth, ConfPublicStats, MeetingDetail, MeetingSourcing, MeetingStatus, MeetingView } from './shape.js';
import { confConnectedNow } from './tokens.js';

const columns = {
  id: confMeetings.id,
  confMeetingId: confMeetings.confMeetingId,
  confMeetingNumber: confMeetings.confMeetingNumber,
  topic: confMeetings.topic,
  status: confMeetings.status,
  sourcing: confMeetings.sourcing,
  insightCount: confMeetings.insightCount,
  userId: confMeetings.userId,
  hostEmail: confMeetings.hostEmail,
  startTime: confMeetings.startTime,
  durationMinutes: confMeetings.durationMinutes,
  error: confMeetings.error,
  insights: sql<InsightsRecord | null>`${confMeetings.payload}->'insights'`,
  batchId: confMeetings.batchId,
  processedAt: confMeetings.processedAt,
  createdAt: confMeetings.createdAt,
  updatedAt: confMeetings.updatedAt,
};
type Row = Record<string, unknown>;

const orNull = (d: Date | null | undefined): Date | null => d ?? null;

function toView(r: Row): MeetingView {
  return {
    id: r.id as string,
    confMeetingId: r.confMeetingId as string,
    confMeetingNumber: (r.confMeetingNumber as string | null) ?? null,
    topic: r.topic as string,
    status: r.status as MeetingStatus,
    sourcing: r.sourcing as MeetingSourcing,
    insightCount: r.insightCount as number,
    userId: (r.userId as string | null) ?? null,
    hostEmail: (r.hostEmail as string | null) ?? null,
    startTime: orNull(r.startTime as Date | null),
    durationMinutes: (r.durationMinutes as number | null) ?? null,
    error: (r.error as string | null) ?? null,
    // The record of the last processing; a meeting being processed again (pending) has none yet.
    ...insightsView(r.status === 'completed' ? (r.insights as InsightsRecord | null) : null),
    batchId: (r.batchId as string | null) ?? null,
    processedAt: orNull(r.processedAt as Date | null),
    createdAt: r.createdAt as Date,
    updatedAt: r.updatedAt as Date,
  };
}

export interface ListMeetingsQuery extends PageQuery {
  status?: MeetingStatus | undefined;
  sourcing?: MeetingSourcing | undefined;
  batchId?: string | undefined;
}

export async function listMeetings(ctx: Pick<CoreContext, 'db'>, q: ListMeetingsQuery): Promise<Page<MeetingView>> {
  const w = pageWindow(q);
  const where = and(
    q.status ? eq(confMeetings.status, q.status) : undefined,
    q.sourcing ? eq(confMeetings.sourcing, q.sourcing) : undefined,
    q.batchId ? eq(confMeetings.batchId, q.batchId) : inLiveProgram(sql`conf_meetings.batch_id`, { nullable: true }),
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(columns)
      .from(confMeetings)
      .where(where)
      .orderBy(desc(confMeetings.createdAt), desc(confMeetings.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(confMeetings).where(where),
  ]);
  return toPage(
    rows.map((r) => toView(r as Row)),
    total?.n ?? 0,
    w,
  );
}

export async function getMeeting(ctx: Pick<CoreContext, 'db'>, id: string): Promise<MeetingDetail> {
  const [row] = await ctx.db
    .select({ ...columns, transcriptText: confMeetings.transcriptText })
    .from(confMeetings)
    // A deleted program's meeting is gone here as from the list (404, as an unknown id).
    .where(and(eq(confMeetings.id, id), inLiveProgram(sql`conf_meetings.batch_id`, { nullable: true })));
  if (!row) throw notFound('Meeting', Code.MEETING_NOT_FOUND);
  const [k] = await ctx.db.select({ n: count() }).from(transcriptKnowledge).where(eq(transcriptKnowledge.meetingId, id));
  return { ...toView(row as Row), transcriptText: row.transcriptText ?? null, knowledgeCount: k?.n ?? 0 };
}

/**
 * Re-processes a meeting: a completed or failed meeting goes back to pending (one conditional UPDATE,
 * so a meeting already being processed answers 409) and its job is queued in the same transaction.
 */
export async function reprocessMeeting(ctx: Pick<CoreContext, 'db' | 'jobs'>, id: string): Promise<MeetingView> {
  return ctx.db.transaction(async (tx) => {
    // A deleted program's meeting is 404 here as on GET (its job would fail: the program is gone).
    const live = inLiveProgram(sql`conf_meetings.batch_id`, { nullable: true });
    const [row] = await tx
      .update(confMeetings)
      .set({ status: 'pending', error: null, updatedAt: sql`now()` })
      .where(and(eq(confMeetings.id, id), inArray(confMeetings.status, ['completed', 'failed']), live))
      .returning(columns);
    if (!row) {
      const [exists] = await tx
        .select({ id: confMeetings.id })
        .from(confMeetings)
        .where(and(eq(confMeetings.id, id), live));
      if (!exists) throw notFound('Meeting', Code.MEETING_NOT_FOUND);
      throw conflict(Code.MEETING_PROCESSING, 'The meeting is already being processed');
    }
    await ctx.jobs.send(confProcessMeetingJob, { meetingId: id }, { tx });
    return toView(row as Row);
  });
}

/** Jobs waiting or running on the ingestion queues (null when the job schema is not there, e.g. tests). */
async function queueDepth(ctx: Pick<CoreContext, 'pool'>): Promise<{ depth: number | null; lastEventAt: Date | null }> {
  try {
    const { rows } = await ctx.pool.query<{ depth: string; last: Date | null }>(
      `SELECT count(*) FILTER (WHERE state IN ('created', 'retry', 'active')) AS depth, max(created_on) FILTER (WHERE name = $1) AS last
         FROM pgboss.job WHERE name = ANY($2::text[])`,
      [confIngestJob.name, [confIngestJob.name, confProcessMeetingJob.name]],
    );
    return { depth: Number(rows[0]?.depth ?? 0), lastEventAt: rows[0]?.last ?? null };
  } catch {
    return { depth: null, lastEventAt: null };
  }
}

/** GET /conf/health: the caller's connection, whether the webhook secret is set, the last event, the queue depth. */
export async function confHealth(ctx: Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets'>, userId: string): Promise<ConfHealth> {
  const [connection, queue, byStatus, [last], connectedRows] = await Promise.all([
    confConnection(ctx, userId),
    queueDepth(ctx),
    ctx.db.select({ status: confMeetings.status, n: count() }).from(confMeetings).groupBy(confMeetings.status),
    ctx.db
      .select({
        at: max(confMeetings.createdAt),
        webhookAt: sql<Date | null>`max(${confMeetings.createdAt}) filter (where ${confMeetings.sourcing} = 'webhook')`,
      })
      .from(confMeetings),
    // Connected accounts (a handful of admins): whose tokens still decrypt, as /conf/token counts one.
    ctx.db
      .select({
        id: users.id,
        confConnected: users.confConnected,
        confAccessToken: users.confAccessToken,
        confRefreshToken: users.confRefreshToken,
      })
      .from(users)
      .where(eq(users.confConnected, true)),
  ]);
  const counts = { pending: 0, completed: 0, failed: 0 };
  for (const r of byStatus) counts[r.status] = r.n;
  const webhookAt = last?.webhookAt ? new Date(last.webhookAt) : null;
  const lastEvent = [queue.lastEventAt, webhookAt].filter((d): d is Date => !!d).sort((a, b) => b.getTime() - a.getTime())[0];
  return {
    configured: !!(ctx.config.CONF_CLIENT_ID && ctx.config.CONF_CLIENT_SECRET),
    webhookSecretConfigured: !!ctx.config.CONF_WEBHOOK_SECRET_TOKEN,
    connection,
    connectedUsers: connectedRows.filter((row) => confConnectedNow(ctx.secrets, row)).length,
    lastEventAt: orNull(lastEvent),
    lastMeetingAt: orNull(last?.at ? new Date(last.at) : null),
    queueDepth: queue.depth,
    meetings: counts,
  };
}

/**
 * GET /conf/public-stats: counts only; no topics, names or text. A public read: one program's counts,
 * the given batchId's or the default program's (404 for an unknown or archived program).
 */
export async function confPublicStats(ctx: Pick<CoreContext, 'db'>, q: { batchId?: string | undefined } = {}): Promise<ConfPublicStats> {
  const batchId = await resolveProgramId(ctx, q.batchId);
  const [[m], [i], [k]] = await Promise.all([
    ctx.db
      .select({ n: count(), last: max(confMeetings.processedAt) })
      .from(confMeetings)
      .where(and(eq(confMeetings.status, 'completed'), eq(confMeetings.batchId, batchId))),
    ctx.db
      .select({ n: count() })
      .from(confInsights)
      .where(and(eq(confInsights.status, 'approved'), eq(confInsights.batchId, batchId))),
    ctx.db
      .select({ n: count() })
      .from(transcriptKnowledge)
      .where(and(inArray(transcriptKnowledge.status, ['approved', 'promoted']), eq(transcriptKnowledge.batchId, batchId))),
  ]);
  return {
    meetingsProcessed: m?.n ?? 0,
    insightsApproved: i?.n ?? 0,
    knowledgeItems: k?.n ?? 0,
    lastProcessedAt: orNull(m?.last ? new Date(m.last) : null),
  };
}
