import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { postFacts, postsInScope } from './community.js';
import { commentsInScope } from './overview.js';
import { rangeView } from './range.js';
import type { AdminCommunity, CommunityChart, CommunityGrowth, UserActivity } from './schemas.js';
import { type DashboardQuery, resolveScope, type Scope } from './scope.js';
import { bucketOfTs, filledSeries, inProgram, inRange, num, rate } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

const POST_STATUSES = ['open', 'answered', 'pending', 'closed'] as const;

/** `GET /admin/community`: the range's posts by status, answers, comments and top contributors. */
export async function adminCommunity(ctx: Ctx, q: DashboardQuery): Promise<AdminCommunity> {
  const s = await resolveScope(ctx, q);
  const [facts, statuses, comments, top] = await Promise.all([
    postFacts(ctx, s),
    ctx.db.execute<{ k: string; n: number; escalated: number }>(sql`
      select p.status::text as k, count(*)::int as n, count(*) filter (where p.escalation_status = 'escalated')::int as escalated
      from ${postsInScope(s)} group by 1`),
    ctx.db.execute<{ created: number; accepted: number }>(
      sql`select count(*)::int as created, count(*) filter (where c.is_accepted)::int as accepted from ${commentsInScope(s)}`,
    ),
    ctx.db.execute<{ user_id: string; name: string; posts: number; comments: number }>(sql`
      with a as (
        select p.author_id as user_id, 1 as post, 0 as comment from ${postsInScope(s)} and p.author_id is not null
        union all
        select c.author_id, 0, 1 from ${commentsInScope(s)} and c.author_id is not null),
      t as (select user_id, sum(post)::int as posts, sum(comment)::int as comments from a group by user_id
        order by sum(post) + sum(comment) desc, user_id limit ${q.limit ?? 10})
      select t.user_id, u.name, t.posts, t.comments from t join users u on u.id = t.user_id
      order by t.posts + t.comments desc, t.user_id`),
  ]);
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    posts: {
      created: facts.posts,
      byStatus: Object.fromEntries(
        POST_STATUSES.map((k) => [k, statuses.rows.find((r) => r.k === k)?.n ?? 0]),
      ) as AdminCommunity['posts']['byStatus'],
      escalated: statuses.rows.reduce((a, r) => a + r.escalated, 0),
      answerRate: rate(facts.answered, facts.posts),
      medianTimeToFirstAnswerHours: facts.medianHours,
    },
    comments: { created: num(comments.rows[0]?.created), accepted: num(comments.rows[0]?.accepted) },
    topContributors: top.rows.map((r) => ({ userId: r.user_id, name: r.name, posts: r.posts, comments: r.comments })),
  };
}

const postsByBucket = (s: Scope) =>
  sql`select ${bucketOfTs(sql`p.created_at`, s.range.interval)} as bucket, count(*) as n, count(p.answered_at) as answered
    from ${postsInScope(s)} group by 1`;
const commentsByBucket = (s: Scope) =>
  sql`select ${bucketOfTs(sql`c.created_at`, s.range.interval)} as bucket, count(*) as n from ${commentsInScope(s)} group by 1`;
const usersByBucket = (s: Scope) =>
  sql`select ${bucketOfTs(sql`created_at`, s.range.interval)} as bucket, count(*) as n from users where ${inRange(sql`created_at`, s.range)} group by 1`;

/** `GET /admin/community/chart`: posts, comments and answered posts per bucket. */
export async function communityChart(ctx: Ctx, q: DashboardQuery): Promise<CommunityChart> {
  const s = await resolveScope(ctx, q);
  const data = sql`select bucket, sum(posts) as "posts", sum(comments) as "comments", sum(answered) as "answered" from (
      select bucket, n as posts, 0 as comments, answered from (${postsByBucket(s)}) p
      union all select bucket, 0, n, 0 from (${commentsByBucket(s)}) c) x group by bucket`;
  const res = await ctx.db.execute<{ bucket: string; posts: number; comments: number; answered: number }>(
    filledSeries(s.range, data, ['posts', 'comments', 'answered']),
  );
  return { range: rangeView(s.range), batchId: s.batchId, series: res.rows };
}

/** `GET /admin/community-growth`: new posts, comments and members per bucket, with running totals. */
export async function communityGrowth(ctx: Ctx, q: DashboardQuery): Promise<CommunityGrowth> {
  const s = await resolveScope(ctx, q);
  const data = sql`select bucket, sum(posts) as "posts", sum(comments) as "comments", sum(members) as "members" from (
      select bucket, n as posts, 0 as comments, 0 as members from (${postsByBucket(s)}) p
      union all select bucket, 0, n, 0 from (${commentsByBucket(s)}) c
      union all select bucket, 0, 0, n from (${usersByBucket(s)}) u) x group by bucket`;
  const start = s.range.start.toISOString();
  const [series, before] = await Promise.all([
    ctx.db.execute<{ bucket: string; posts: number; comments: number; members: number }>(
      filledSeries(s.range, data, ['posts', 'comments', 'members']),
    ),
    ctx.db.execute<{ posts: number; members: number }>(sql`
      select (select count(*)::int from community_posts p where p.created_at < ${start}::timestamptz and p.deleted_at is null${inProgram(sql`p.batch_id`, s.batchId)}) as posts,
        (select count(*)::int from users where created_at < ${start}::timestamptz) as members`),
  ]);
  const b = { posts: num(before.rows[0]?.posts), members: num(before.rows[0]?.members) };
  let posts = b.posts;
  let members = b.members;
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    before: b,
    series: series.rows.map((r) => {
      posts += r.posts;
      members += r.members;
      return { ...r, cumulativePosts: posts, cumulativeMembers: members };
    }),
  };
}

/** `GET /admin/user-activity`: new accounts and distinct active authors (posts or comments) per bucket. */
export async function userActivity(ctx: Ctx, q: DashboardQuery): Promise<UserActivity> {
  const s = await resolveScope(ctx, q);
  const authors = sql`
    select ${bucketOfTs(sql`p.created_at`, s.range.interval)} as bucket, p.author_id as a from ${postsInScope(s)} and p.author_id is not null
    union select ${bucketOfTs(sql`c.created_at`, s.range.interval)}, c.author_id from ${commentsInScope(s)} and c.author_id is not null`;
  const data = sql`select bucket, sum(members) as "newUsers", sum(active) as "activeUsers" from (
      select bucket, n as members, 0 as active from (${usersByBucket(s)}) u
      union all select bucket, 0, count(*) from (${authors}) a group by bucket) x group by bucket`;
  const [series, totals] = await Promise.all([
    ctx.db.execute<{ bucket: string; newUsers: number; activeUsers: number }>(filledSeries(s.range, data, ['newUsers', 'activeUsers'])),
    ctx.db.execute<{ new_users: number; active: number }>(sql`
      select (select count(*)::int from users where ${inRange(sql`created_at`, s.range)}) as new_users,
        (select count(*)::int from (select p.author_id from ${postsInScope(s)} and p.author_id is not null
          union select c.author_id from ${commentsInScope(s)} and c.author_id is not null) x) as active`),
  ]);
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    totals: { newUsers: num(totals.rows[0]?.new_users), activeUsers: num(totals.rows[0]?.active) },
    series: series.rows,
  };
}
