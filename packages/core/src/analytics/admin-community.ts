import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { activeUserCounts } from './active-users.js';
import { communitySeries, communityTotals, medianAnswerHours, scopeSplit } from './community.js';
import { signupDays, splitCommunityDays } from './community-rollup.js';
import { rangeView } from './range.js';
import type { AdminCommunity, CommunityChart, CommunityGrowth, UserActivity } from './schemas.js';
import { type DashboardQuery, resolveScope } from './scope.js';
import { bucketOfDay, filledSeries, num, rate } from './sql.js';
import { topContributors } from './top-contributors.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** `GET /admin/community`: the range's posts by status, answers, comments and top contributors. */
export async function adminCommunity(ctx: Ctx, q: DashboardQuery): Promise<AdminCommunity> {
  const s = await resolveScope(ctx, q, { series: false });
  const split = await scopeSplit(ctx, s);
  const [t, median, top] = await Promise.all([
    communityTotals(ctx, split, s.batchId),
    medianAnswerHours(ctx, s, split),
    topContributors(ctx, split, s.batchId, Math.round((s.range.end.getTime() - s.range.start.getTime()) / 86_400_000), q.limit ?? 10),
  ]);
  const names = await ctx.db.execute<{ id: string; name: string }>(
    sql`select id, name from users where id = any(${`{${top.map((c) => c.userId).join(',')}}`}::uuid[])`,
  );
  const nameOf = new Map(names.rows.map((r) => [r.id, r.name]));
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    posts: {
      created: t.posts,
      byStatus: { open: t.status_open, answered: t.status_answered, pending: t.status_pending, closed: t.status_closed },
      escalated: t.escalated,
      answerRate: rate(t.answered, t.posts),
      medianTimeToFirstAnswerHours: median,
    },
    comments: { created: t.comments, accepted: t.comments_accepted },
    topContributors: top.flatMap((c) => {
      const name = nameOf.get(c.userId);
      return name === undefined ? [] : [{ userId: c.userId, name, posts: c.posts, comments: c.comments }];
    }),
  };
}

/** `GET /admin/community/chart`: posts, comments and answered posts per bucket. */
export async function communityChart(ctx: Ctx, q: DashboardQuery): Promise<CommunityChart> {
  const s = await resolveScope(ctx, q, { series: true });
  const split = await scopeSplit(ctx, s);
  const series = await communitySeries(ctx, s, split, { posts: 'posts', comments: 'comments', answered: 'answered' });
  return { range: rangeView(s.range), batchId: s.batchId, series };
}

/** Accounts created per bucket (`members`). */
async function signupSeries(ctx: Ctx, s: Awaited<ReturnType<typeof resolveScope>>, split: Awaited<ReturnType<typeof scopeSplit>>) {
  const data = sql`select ${bucketOfDay(sql`day`, s.range.interval)} as bucket, sum(users) as "members" from (${signupDays(split)}) d group by 1`;
  const res = await ctx.db.execute<{ bucket: string; members: number }>(filledSeries(s.range, data, ['members']));
  return res.rows;
}

/** The day before a YYYY-MM-DD day. */
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** `GET /admin/community-growth`: new posts, comments and members per bucket, with running totals. */
export async function communityGrowth(ctx: Ctx, q: DashboardQuery): Promise<CommunityGrowth> {
  const s = await resolveScope(ctx, q, { series: true });
  const [split, earlier] = await Promise.all([scopeSplit(ctx, s), splitCommunityDays(ctx, null, dayBefore(s.range.from))]);
  const [content, members, beforeContent, beforeMembers] = await Promise.all([
    communitySeries(ctx, s, split, { posts: 'posts', comments: 'comments' }),
    signupSeries(ctx, s, split),
    communityTotals(ctx, earlier, s.batchId),
    ctx.db.execute<{ n: string | null }>(sql`select sum(users) as n from (${signupDays(earlier)}) d`),
  ]);
  const b = { posts: beforeContent.posts, comments: beforeContent.comments, members: num(beforeMembers.rows[0]?.n) };
  let posts = b.posts;
  let comments = b.comments;
  let total = b.members;
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    before: b,
    series: content.map((r, i) => {
      const m = members[i]?.members ?? 0;
      posts += r.posts;
      comments += r.comments;
      total += m;
      return {
        bucket: r.bucket,
        posts: r.posts,
        comments: r.comments,
        members: m,
        cumulativePosts: posts,
        cumulativeComments: comments,
        cumulativeMembers: total,
      };
    }),
  };
}

/** `GET /admin/user-activity`: new accounts and distinct active authors (posts or comments) per bucket. */
export async function userActivity(ctx: Ctx, q: DashboardQuery): Promise<UserActivity> {
  const s = await resolveScope(ctx, q, { series: true });
  const split = await scopeSplit(ctx, s);
  // Distinct users cannot be summed from days: each bucket counts its users' first active day in it (active-users.ts).
  const active = sql`select bucket, sum(n) as "activeUsers" from (${activeUserCounts(split, s.batchId, s.range.from, s.range.interval)}) a group by 1`;
  const [members, series, totals] = await Promise.all([
    signupSeries(ctx, s, split),
    ctx.db.execute<{ bucket: string; activeUsers: number }>(filledSeries(s.range, active, ['activeUsers'])),
    ctx.db.execute<{ new_users: string | null; active: number }>(sql`
      select (select sum(users) from (${signupDays(split)}) d) as new_users,
        (select sum(n)::int from (${activeUserCounts(split, s.batchId, s.range.from, null)}) a) as active`),
  ]);
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    totals: { newUsers: num(totals.rows[0]?.new_users), activeUsers: num(totals.rows[0]?.active) },
    series: series.rows.map((r, i) => ({ bucket: r.bucket, newUsers: members[i]?.members ?? 0, activeUsers: r.activeUsers })),
  };
}
