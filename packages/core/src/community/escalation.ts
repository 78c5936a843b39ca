import { communityPosts, postEscalationLogs, users } from '@cfaq/db/schema/index';
import { and, count, desc, eq, gte, inArray, isNull, lte, type SQL, sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, notFound, unprocessable } from '../errors/index.js';
import { activeAdmins } from '../identity/users.js';
import { notify } from '../notifications/index.js';
import { inLiveProgram } from '../programs/live.js';
import { resolveProgramId } from '../programs/resolve.js';
import { awardBadge } from '../reputation/badges.js';
import { HOUR_MS } from '../runtime/clock.js';
import type { Actor, DbOrTx } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { timeBounds } from '../shared/time-bounds.js';
import type { EscalatedPostItem, EscalationHistoryItem } from './shape.js';
import { humanAnswered } from './view.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'config' | 'log'>;

/**
 * Escalation of unanswered posts (README "Escalation of unanswered posts"). One job every
 * UNANSWERED_ESCALATION_CHECK_MINUTES runs both checks on the same tick:
 * - auto-escalation: a live open or pending post with UNANSWERED_ESCALATION_COMMENTS (3) or more
 *   unanswered comments (live, marked dna, neither accepted nor verified) and escalationStatus none
 *   -> escalated, escalatedAt = now; every active admin gets one post_escalated notification.
 * - time trial: a live open post with no accepted or verified answer and no approved AI answer,
 *   created UNANSWERED_ESCALATION_DAYS *hours* ago or earlier (the spec's prose says 16 hours; its
 *   table names the setting _DAYS with 16: the value is read as hours) and never in a time trial
 *   -> pending (pendingAt = now). The first user other than the author to comment on a pending post
 *   wins it (firstResponderId; see claimFirstResponder).
 * Both are single conditional UPDATEs over rows locked with skip locked, so two workers never move
 * the same post and a post is escalated (and admins notified) once.
 */
export interface EscalationRunResult {
  escalated: string[];
  pending: string[];
}

interface LogEntry {
  postId: string;
  batchId: string | null;
  action: 'escalated' | 'resolved' | 'dismissed' | 'pending' | 'first_responder';
  fromStatus: string | null;
  toStatus: string | null;
  actorId?: string | null;
  reason?: string | null;
  details?: Record<string, unknown>;
}

async function writeLogs(db: DbOrTx, rows: LogEntry[], at: Date) {
  if (rows.length === 0) return;
  await db.insert(postEscalationLogs).values(
    rows.map((r) => ({
      postId: r.postId,
      batchId: r.batchId,
      action: r.action,
      fromStatus: r.fromStatus,
      toStatus: r.toStatus,
      actorId: r.actorId ?? null,
      reason: r.reason ?? null,
      details: r.details ?? {},
      createdAt: at,
    })),
  );
}

type Moved = { id: string; batch_id: string | null; title: string; n?: number };

/** Auto-escalation: 3+ unanswered comments -> escalated; admins notified once per post. */
export async function escalateUnansweredPosts(ctx: Ctx): Promise<string[]> {
  const now = ctx.clock.now();
  const min = ctx.config.UNANSWERED_ESCALATION_COMMENTS;
  return ctx.db.transaction(async (tx) => {
    const res = await tx.execute<Moved>(sql`
      with counted as (
        select c.post_id, count(*)::int as n from comments c
        where c.dna and not c.is_accepted and not c.is_verified and c.deleted_at is null
        group by c.post_id having count(*) >= ${min}
      ), due as (
        select p.id, counted.n from community_posts p join counted on counted.post_id = p.id
        where p.escalation_status = 'none' and p.deleted_at is null and p.status in ('open', 'pending')
          and ${inLiveProgram(sql`p.batch_id`, { nullable: true })}
        for update of p skip locked
      )
      update community_posts p set escalation_status = 'escalated', escalated_at = ${now}, updated_at = ${now}
      from due where p.id = due.id
      returning p.id, p.batch_id, p.title, due.n`);
    if (res.rows.length === 0) return [];
    await writeLogs(
      tx,
      res.rows.map((r) => ({
        postId: r.id,
        batchId: r.batch_id,
        action: 'escalated' as const,
        fromStatus: 'none',
        toStatus: 'escalated',
        reason: `${r.n} unanswered comments`,
        details: { unansweredComments: r.n },
      })),
      now,
    );
    const admins = await tx.select({ id: users.id }).from(users).where(activeAdmins(now));
    for (const r of res.rows) {
      for (const a of admins) {
        await notify(tx, {
          userId: a.id,
          batchId: r.batch_id,
          kind: 'post_escalated',
          title: 'A post was escalated',
          body: r.title,
          link: `/admin/community/escalated-posts`,
          data: { postId: r.id, unansweredComments: r.n },
        });
      }
      logPipelineStep(ctx.log, { action: 'escalation', id: r.id, conf: null, verdict: 'escalated', extra: { not_answering: r.n } });
    }
    return res.rows.map((r) => r.id);
  });
}

/** The time trial: posts unanswered for the window -> pending. */
export async function startTimeTrials(ctx: Ctx): Promise<string[]> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - ctx.config.UNANSWERED_ESCALATION_DAYS * HOUR_MS);
  return ctx.db.transaction(async (tx) => {
    const res = await tx.execute<Moved>(sql`
      with due as (
        select p.id from community_posts p
        where p.status = 'open' and p.deleted_at is null and p.pending_at is null and p.created_at <= ${cutoff}
          and p.accepted_comment_id is null and p.ai_answer_status is distinct from 'approved'
          and not ${humanAnswered(sql`p.id`)} and ${inLiveProgram(sql`p.batch_id`, { nullable: true })}
        for update of p skip locked
      )
      update community_posts p set status = 'pending', pending_at = ${now}, updated_at = ${now}
      from due where p.id = due.id
      returning p.id, p.batch_id, p.title`);
    await writeLogs(
      tx,
      res.rows.map((r) => ({
        postId: r.id,
        batchId: r.batch_id,
        action: 'pending' as const,
        fromStatus: 'open',
        toStatus: 'pending',
        reason: `unanswered for ${ctx.config.UNANSWERED_ESCALATION_DAYS} hours`,
      })),
      now,
    );
    for (const r of res.rows) logPipelineStep(ctx.log, { action: 'escalation_time_trial', id: r.id, conf: null, verdict: 'pending' });
    return res.rows.map((r) => r.id);
  });
}

export async function runEscalationCheck(ctx: Ctx): Promise<EscalationRunResult> {
  const escalated = await escalateUnansweredPosts(ctx);
  const pending = await startTimeTrials(ctx);
  ctx.log.info({ escalated: escalated.length, pending: pending.length }, '[escalation] check done');
  return { escalated, pending };
}

/**
 * Called in the transaction of a new comment: when the post is pending (in its time trial) and the
 * commenter is not its author, the first such commenter wins it. One conditional UPDATE (pending,
 * no responder yet) decides, so of two responders racing exactly one wins: the post records them
 * (firstResponderId, firstRespondedAt), goes back to open, and they get the first_responder badge
 * (once per program) with its first_responder_awarded notification.
 */
export async function claimFirstResponder(
  ctx: Pick<CoreContext, 'clock'> & Partial<Pick<CoreContext, 'log'>>,
  tx: DbOrTx,
  post: { id: string; authorId: string | null; batchId: string | null; title: string },
  responderId: string,
  commentId: string,
): Promise<boolean> {
  if (post.authorId === responderId) return false;
  const now = ctx.clock.now();
  const [won] = await tx
    .update(communityPosts)
    .set({ firstResponderId: responderId, firstRespondedAt: now, status: 'open', updatedAt: now })
    .where(and(eq(communityPosts.id, post.id), eq(communityPosts.status, 'pending'), isNull(communityPosts.firstResponderId)))
    .returning({ id: communityPosts.id });
  if (!won) return false;
  const batchId = post.batchId ?? (await resolveProgramId({ db: tx as CoreContext['db'] }, null));
  // The reputation module's idempotent award: once per program, with its points and first_responder_awarded notification.
  const badge = await awardBadge(tx, {
    userId: responderId,
    batchId,
    name: 'first_responder',
    reason: `First to answer "${post.title}" after it went unanswered`,
    data: { postId: post.id },
  });
  await writeLogs(
    tx,
    [
      {
        postId: post.id,
        batchId: post.batchId,
        action: 'first_responder',
        fromStatus: 'pending',
        toStatus: 'open',
        actorId: responderId,
        details: { commentId, badgeAwarded: badge.awarded },
      },
    ],
    now,
  );
  logPipelineStep(ctx.log, {
    action: 'first_responder',
    id: post.id,
    conf: null,
    verdict: badge.awarded ? 'awarded' : 'already_held',
    extra: { user: responderId },
  });
  return true;
}

const escalatedColumns = {
  id: communityPosts.id,
  batchId: communityPosts.batchId,
  authorId: communityPosts.authorId,
  title: communityPosts.title,
  body: communityPosts.body,
  status: communityPosts.status,
  commentCount: communityPosts.commentCount,
  unansweredComments: sql<number>`(select count(*)::int from comments c where c.post_id = community_posts.id and c.dna and not c.is_accepted and not c.is_verified and c.deleted_at is null)`,
  escalationStatus: communityPosts.escalationStatus,
  escalatedAt: communityPosts.escalatedAt,
  escalationResolvedAt: communityPosts.escalationResolvedAt,
  escalationResolvedBy: communityPosts.escalationResolvedBy,
  escalationNote: communityPosts.escalationNote,
  pendingAt: communityPosts.pendingAt,
  firstResponderId: communityPosts.firstResponderId,
  firstRespondedAt: communityPosts.firstRespondedAt,
  createdAt: communityPosts.createdAt,
};

type EscalatedRow = {
  [K in keyof typeof escalatedColumns]: K extends 'unansweredComments'
    ? number
    : (typeof communityPosts.$inferSelect)[Exclude<K, 'unansweredComments'>];
};

const toItem = (r: EscalatedRow): EscalatedPostItem => r;

export interface EscalatedPostsQuery extends PageQuery {
  batchId?: string | undefined;
  /** escalated (default), resolved, dismissed, or all three. */
  status?: 'escalated' | 'resolved' | 'dismissed' | 'all' | undefined;
}

/** `GET /admin/community/escalated-posts`: escalated posts (or the other escalation states), oldest escalation first. */
export async function listEscalatedPosts(ctx: Pick<CoreContext, 'db'>, q: EscalatedPostsQuery): Promise<Page<EscalatedPostItem>> {
  const w = pageWindow(q);
  const status = q.status ?? 'escalated';
  const statuses: ('escalated' | 'resolved' | 'dismissed')[] = status === 'all' ? ['escalated', 'resolved', 'dismissed'] : [status];
  const batchId = q.batchId ? await resolveProgramId(ctx, q.batchId, { allowArchived: true }) : undefined;
  const where = and(
    inArray(communityPosts.escalationStatus, statuses),
    isNull(communityPosts.deletedAt),
    batchId ? eq(communityPosts.batchId, batchId) : inLiveProgram(sql`community_posts.batch_id`, { nullable: true }),
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(escalatedColumns)
      .from(communityPosts)
      .where(where)
      .orderBy(sql`${communityPosts.escalatedAt} asc nulls last`, communityPosts.id)
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(communityPosts).where(where),
  ]);
  return toPage((rows as EscalatedRow[]).map(toItem), total?.n ?? 0, w);
}

/** Resolve or dismiss: escalated -> resolved | dismissed (one conditional UPDATE), logged, admin-logged. */
async function closePostEscalation(
  ctx: Ctx,
  actor: Actor,
  id: string,
  to: 'resolved' | 'dismissed',
  note: string | null,
): Promise<EscalatedPostItem> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const [moved] = await tx
      .update(communityPosts)
      .set({ escalationStatus: to, escalationResolvedAt: now, escalationResolvedBy: actor.id, escalationNote: note, updatedAt: now })
      .where(
        and(
          eq(communityPosts.id, id),
          eq(communityPosts.escalationStatus, 'escalated'),
          isNull(communityPosts.deletedAt),
          inLiveProgram(sql`community_posts.batch_id`, { nullable: true }),
        ),
      )
      .returning({ id: communityPosts.id, batchId: communityPosts.batchId });
    if (!moved) {
      const [exists] = await tx
        .select({ id: communityPosts.id })
        .from(communityPosts)
        .where(
          and(
            eq(communityPosts.id, id),
            isNull(communityPosts.deletedAt),
            inLiveProgram(sql`community_posts.batch_id`, { nullable: true }),
          ),
        )
        .limit(1);
      if (!exists) throw notFound('Post', Code.POST_NOT_FOUND);
      throw unprocessable(Code.POST_NOT_ESCALATED, 'Only an escalated post can be resolved or dismissed');
    }
    await writeLogs(
      tx,
      [{ postId: id, batchId: moved.batchId, action: to, fromStatus: 'escalated', toStatus: to, actorId: actor.id, reason: note }],
      now,
    );
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: to === 'resolved' ? 'post.escalation_resolved' : 'post.escalation_dismissed',
      targetType: 'CommunityPost',
      targetId: id,
      reason: note,
      ...(moved.batchId ? { batchId: moved.batchId } : {}),
    });
    logPipelineStep(ctx.log, { action: to === 'resolved' ? 'escalation_resolve' : 'escalation_dismiss', id, conf: null, verdict: to });
    const [row] = await tx.select(escalatedColumns).from(communityPosts).where(eq(communityPosts.id, id));
    return toItem(row as EscalatedRow);
  });
}

export const resolveEscalatedPost = (ctx: Ctx, actor: Actor, id: string, note?: string | null) =>
  closePostEscalation(ctx, actor, id, 'resolved', note ?? null);
export const dismissEscalatedPost = (ctx: Ctx, actor: Actor, id: string, reason: string) =>
  closePostEscalation(ctx, actor, id, 'dismissed', reason);

export interface EscalationHistoryQuery extends PageQuery {
  postId?: string | undefined;
  action?: 'escalated' | 'resolved' | 'dismissed' | 'pending' | 'first_responder' | undefined;
  batchId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** `GET /admin/community/escalation-history`: every escalation and time-trial event, newest first. */
export async function escalationHistory(ctx: Pick<CoreContext, 'db'>, q: EscalationHistoryQuery): Promise<Page<EscalationHistoryItem>> {
  const w = pageWindow(q);
  // from after to is a 400 naming query.from, as on the dashboards (not an empty answer).
  const { from, to } = timeBounds(q);
  const conds: (SQL | undefined)[] = [
    q.postId ? eq(postEscalationLogs.postId, q.postId) : undefined,
    q.action ? eq(postEscalationLogs.action, q.action) : undefined,
    // A deleted program's rows leave the admin lists (README, Programs), as they leave the escalated posts.
    q.batchId ? eq(postEscalationLogs.batchId, q.batchId) : inLiveProgram(postEscalationLogs.batchId, { nullable: true }),
    from ? gte(postEscalationLogs.createdAt, from) : undefined,
    to ? lte(postEscalationLogs.createdAt, to) : undefined,
  ];
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ log: postEscalationLogs, postTitle: communityPosts.title, actorName: users.name })
      .from(postEscalationLogs)
      .leftJoin(communityPosts, eq(communityPosts.id, postEscalationLogs.postId))
      .leftJoin(users, eq(users.id, postEscalationLogs.actorId))
      .where(where)
      .orderBy(desc(postEscalationLogs.createdAt), desc(postEscalationLogs.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(postEscalationLogs).where(where),
  ]);
  return toPage(
    rows.map(({ log, postTitle, actorName }) => ({
      id: log.id,
      postId: log.postId,
      postTitle: postTitle ?? null,
      batchId: log.batchId,
      action: log.action,
      fromStatus: log.fromStatus,
      toStatus: log.toStatus,
      actorId: log.actorId,
      actorName: actorName ?? null,
      reason: log.reason,
      details: log.details,
      createdAt: log.createdAt,
    })),
    total?.n ?? 0,
    w,
  );
}
