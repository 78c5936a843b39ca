import { sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, conflict, invalidField, notFound } from '../errors/index.js';
import { notify } from '../notifications/index.js';
import { lockProgramForWrite } from '../programs/lock.js';
import { resolveProgramId } from '../programs/resolve.js';
import type { Actor } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { toDate } from '../shared/shape.js';
import { awardPoints } from './awards.js';
import { awardBadge, revokeBadge } from './badges.js';
import type { Period } from './points.js';
import type { LeaderboardEntry, ReputationLogView, ReputationSummary } from './shape.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** First day (YYYY-MM-DD) of the UTC period containing `now`; 1970-01-01 for all time. */
export function periodStart(period: Period, now: Date): string {
  if (period === 'all') return '1970-01-01';
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), period === 'month' ? 1 : now.getUTCDate()));
  if (period === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

export interface LeaderboardQuery extends PageQuery {
  batchId?: string | undefined;
  period?: Period | undefined;
}

/**
 * The program's users with positive points in the period, highest first (ties by user id), read
 * from the top of reputation_totals_rank_idx; the total from reputation_board_sizes. Rank counts the
 * users strictly ahead (ties share it), from reputation_point_counts past the first page.
 */
export async function leaderboard(
  ctx: Ctx,
  q: LeaderboardQuery,
): Promise<Page<LeaderboardEntry> & { period: Period; periodStart: string }> {
  const batchId = await resolveProgramId(ctx, q.batchId);
  const period = q.period ?? 'all';
  const start = periodStart(period, ctx.clock.now());
  const w = pageWindow(q);
  const part = sql`t.batch_id = ${batchId} and t.period = ${period} and t.period_start = ${start}::date`;
  const [rows, total] = await Promise.all([
    ctx.db.execute<{ user_id: string; name: string; avatar_url: string | null; points: number }>(sql`
      select t.user_id, u.name, u.avatar_url, t.points
      from (
        -- The page first, read in the order of reputation_totals_rank_idx (points desc NULLS LAST, as
        -- the index is; a plain "desc" means nulls first and made PostgreSQL sort the whole board),
        -- then its users: joined before the limit, the planner hashed every user of the board.
        select t.user_id, t.points from reputation_totals t where ${part} and t.points > 0
        order by t.points desc nulls last, t.user_id limit ${w.limit} offset ${w.offset}
      ) t join users u on u.id = t.user_id
      order by t.points desc, t.user_id`),
    // The board's size is kept by a trigger (reputation_board_sizes): counting it walked every entry.
    ctx.db.execute<{ n: number }>(sql`
      select users as n from reputation_board_sizes
      where batch_id = ${batchId} and period = ${period} and period_start = ${start}::date`),
  ]);
  // Ranks: the first row's rank is one more than the users strictly ahead of it; later rows follow.
  const items: LeaderboardEntry[] = [];
  let rank = 0;
  let prevPoints: number | null = null;
  for (const [i, r] of rows.rows.entries()) {
    if (r.points !== prevPoints) {
      rank =
        i === 0 && w.offset > 0
          ? (
              await ctx.db.execute<{ n: number }>(
                sql`select coalesce(sum(users), 0)::int as n from reputation_point_counts t where ${part} and t.points > ${r.points}`,
              )
            ).rows[0]!.n + 1
          : w.offset + i + 1;
      prevPoints = r.points;
    }
    items.push({ rank, userId: r.user_id, name: r.name, avatarUrl: r.avatar_url, points: r.points });
  }
  return { ...toPage(items, total.rows[0]?.n ?? 0, w), period, periodStart: start };
}

/** A user's points (all, this week, this month), rank and live badges in one program. */
export async function reputationSummary(ctx: Ctx, userId: string, batchIdQuery: string | undefined): Promise<ReputationSummary> {
  const batchId = await resolveProgramId(ctx, batchIdQuery, { allowArchived: true });
  const now = ctx.clock.now();
  const user = await ctx.db.execute<{ name: string; reputation: number }>(sql`select name, reputation from users where id = ${userId}`);
  const u = user.rows[0];
  if (!u) throw notFound('User', Code.USER_NOT_FOUND);
  const [totals, badges] = await Promise.all([
    ctx.db.execute<{ period: Period; points: number }>(sql`
      select period, points from reputation_totals
      where batch_id = ${batchId} and user_id = ${userId} and (
        (period = 'all' and period_start = date '1970-01-01') or
        (period = 'week' and period_start = ${periodStart('week', now)}::date) or
        (period = 'month' and period_start = ${periodStart('month', now)}::date))`),
    ctx.db.execute<{ id: string; name: string; reason: string | null; awarded_at: Date; awarded_by: string | null }>(sql`
      select id, name, reason, awarded_at, awarded_by from badges
      where user_id = ${userId} and batch_id = ${batchId} and revoked_at is null order by awarded_at, name`),
  ]);
  const by = Object.fromEntries(totals.rows.map((r) => [r.period, r.points])) as Partial<Record<Period, number>>;
  const points = by.all ?? 0;
  let rank: number | null = null;
  if (points > 0) {
    // Users per points value (reputation_point_counts): as many rows as distinct values above, not users.
    const ahead = await ctx.db.execute<{ n: number }>(sql`
      select coalesce(sum(users), 0)::int as n from reputation_point_counts
      where batch_id = ${batchId} and period = 'all' and period_start = date '1970-01-01' and points > ${points}`);
    rank = (ahead.rows[0]?.n ?? 0) + 1;
  }
  return {
    userId,
    name: u.name,
    batchId,
    points,
    weekPoints: by.week ?? 0,
    monthPoints: by.month ?? 0,
    rank,
    totalReputation: u.reputation,
    badges: badges.rows.map((b) => ({
      id: b.id,
      name: b.name,
      reason: b.reason,
      awardedAt: toDate(b.awarded_at),
      awardedBy: b.awarded_by,
    })),
  };
}

/** A user's reputation log in one program, newest first. */
export async function reputationHistory(
  ctx: Ctx,
  userId: string,
  q: PageQuery & { batchId?: string | undefined },
): Promise<Page<ReputationLogView>> {
  const batchId = await resolveProgramId(ctx, q.batchId, { allowArchived: true });
  const w = pageWindow(q);
  const [rows, total] = await Promise.all([
    ctx.db.execute<{
      id: string;
      batch_id: string | null;
      points: number;
      reason: string;
      source_type: string | null;
      source_id: string | null;
      reverses_id: string | null;
      reversed_at: Date | null;
      created_at: Date;
    }>(sql`
      select id, batch_id, points, reason, source_type, source_id, reverses_id, reversed_at, created_at
      from reputation_logs where user_id = ${userId} and batch_id = ${batchId}
      order by created_at desc, id desc limit ${w.limit} offset ${w.offset}`),
    ctx.db.execute<{ n: number }>(sql`select count(*)::int as n from reputation_logs where user_id = ${userId} and batch_id = ${batchId}`),
  ]);
  return toPage(
    rows.rows.map((r) => ({
      id: r.id,
      batchId: r.batch_id,
      points: r.points,
      reason: r.reason,
      sourceType: r.source_type,
      sourceId: r.source_id,
      reversesId: r.reverses_id,
      reversed: r.reversed_at !== null,
      createdAt: toDate(r.created_at),
    })),
    total.rows[0]?.n ?? 0,
    w,
  );
}

async function assertUser(ctx: Ctx, userId: string): Promise<void> {
  const res = await ctx.db.execute(sql`select 1 from users where id = ${userId}`);
  if (res.rows.length === 0) throw notFound('User', Code.USER_NOT_FOUND);
}

export interface ManualPointsInput {
  userId: string;
  points: number;
  reason: string;
  batchId?: string | undefined;
}

/** An admin credits or debits points by hand (reason required); audit-logged, the user notified. */
export async function adminAwardPoints(ctx: Ctx, actor: Actor, input: ManualPointsInput): Promise<ReputationSummary> {
  // The route's schema refuses 0 too (listed with the body's other errors); this guards other callers.
  if (input.points === 0) throw invalidField('body.points', 'must not be 0');
  return ctx.db.transaction(async (tx) => {
    // Locked until commit: a program delete racing this write waits for it, or makes it a 404 that writes nothing.
    const batchId = await lockProgramForWrite(tx, input.batchId, { allowArchived: true });
    await assertUser({ db: tx, clock: ctx.clock }, input.userId);
    const row = await awardPoints(tx, {
      userId: input.userId,
      batchId,
      points: input.points,
      reason: input.reason,
      sourceType: 'admin',
      awardedBy: actor.id,
    });
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: 'reputation.points_awarded',
      targetType: 'User',
      targetId: input.userId,
      reason: input.reason,
      details: { points: input.points, logId: row?.id ?? null },
      batchId,
    });
    // An admin awarding themselves is not told of their own act (no event notifies its actor).
    if (input.userId !== actor.id)
      await notify(tx, {
        userId: input.userId,
        batchId,
        kind: 'points_awarded',
        title: `${input.points > 0 ? '+' : ''}${input.points} reputation points`,
        body: input.reason,
        link: '/reputation/history',
        data: { points: input.points },
      });
    // Read before commit: after it, the program's delete could already make the summary a 404.
    return reputationSummary({ db: tx, clock: ctx.clock }, input.userId, batchId);
  });
}

export interface BadgeInput {
  userId: string;
  name: string;
  reason: string;
  batchId?: string | undefined;
}

/** An admin issues a badge (409 BADGE_ALREADY_HELD while the user holds it); audit-logged. */
export async function adminIssueBadge(ctx: Ctx, actor: Actor, input: BadgeInput): Promise<ReputationSummary> {
  return ctx.db.transaction(async (tx) => {
    // Locked until commit: a program delete racing this write waits for it, or makes it a 404 that writes nothing.
    const batchId = await lockProgramForWrite(tx, input.batchId, { allowArchived: true });
    await assertUser({ db: tx, clock: ctx.clock }, input.userId);
    const res = await awardBadge(tx, {
      userId: input.userId,
      batchId,
      name: input.name,
      reason: input.reason,
      awardedBy: actor.id,
      mode: 'live',
      notify: input.userId !== actor.id,
    });
    if (!res.awarded) throw conflict(Code.BADGE_ALREADY_HELD, `The user already holds the ${input.name} badge in this program`);
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: 'reputation.badge_issued',
      targetType: 'User',
      targetId: input.userId,
      reason: input.reason,
      details: { badge: input.name, badgeId: res.badgeId },
      batchId,
    });
    // Read before commit: after it, the program's delete could already make the summary a 404.
    return reputationSummary({ db: tx, clock: ctx.clock }, input.userId, batchId);
  });
}

/** An admin revokes a held badge (404 BADGE_NOT_HELD otherwise), taking back its points; audit-logged. */
export async function adminRevokeBadge(ctx: Ctx, actor: Actor, input: BadgeInput): Promise<ReputationSummary> {
  return ctx.db.transaction(async (tx) => {
    // Locked until commit: a program delete racing this write waits for it, or makes it a 404 that writes nothing.
    const batchId = await lockProgramForWrite(tx, input.batchId, { allowArchived: true });
    await assertUser({ db: tx, clock: ctx.clock }, input.userId);
    const id = await revokeBadge(tx, { userId: input.userId, batchId, name: input.name, reason: input.reason, revokedBy: actor.id });
    if (!id) throw notFound('Badge', Code.BADGE_NOT_HELD);
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: 'reputation.badge_revoked',
      targetType: 'User',
      targetId: input.userId,
      reason: input.reason,
      details: { badge: input.name, badgeId: id },
      batchId,
    });
    if (input.userId !== actor.id)
      await notify(tx, {
        userId: input.userId,
        batchId,
        kind: 'badge_revoked',
        title: `Your ${input.name} badge was revoked`,
        body: input.reason,
        link: '/reputation/me',
        data: { badge: input.name, badgeId: id },
      });
    // Read before commit: after it, the program's delete could already make the summary a 404.
    return reputationSummary({ db: tx, clock: ctx.clock }, input.userId, batchId);
  });
}
