import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { rangeView } from './range.js';
import type { CommunityAnalytics } from './schemas.js';
import { type DashboardQuery, resolveScope, type Scope } from './scope.js';
import { bucketOfTs, filledSeries, inProgram, inRange, num, rate } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** Posts created in the range and program, not deleted (served by community_posts_analytics_*_idx). */
export const postsInScope = (s: Scope) =>
  sql`community_posts p where ${inRange(sql`p.created_at`, s.range)} and p.deleted_at is null${inProgram(sql`p.batch_id`, s.batchId)}`;

export interface PostFacts {
  posts: number;
  answered: number;
  medianHours: number | null;
  attempted: number;
  autoApproved: number;
  reviewed: number;
  approved: number;
}

/** One pass over the range's posts (an index-only scan of the analytics index). */
export async function postFacts(ctx: Ctx, s: Scope): Promise<PostFacts> {
  const res = await ctx.db.execute<Record<string, string | number | null>>(sql`
    select count(*)::int as posts,
      count(p.answered_at)::int as answered,
      percentile_cont(0.5) within group (order by extract(epoch from p.answered_at - p.created_at))
        filter (where p.answered_at is not null) as median_s,
      count(p.ai_answer_status)::int as attempted,
      count(*) filter (where p.ai_answer_status = 'approved' and p.ai_answer_reviewed_at is null)::int as auto_approved,
      count(p.ai_answer_reviewed_at)::int as reviewed,
      count(*) filter (where p.ai_answer_reviewed_at is not null and p.ai_answer_status = 'approved')::int as approved
    from ${postsInScope(s)}`);
  const r = res.rows[0] ?? {};
  const median = r.median_s === null || r.median_s === undefined ? null : Math.round((num(r.median_s) / 3600) * 100) / 100;
  return {
    posts: num(r.posts),
    answered: num(r.answered),
    medianHours: median,
    attempted: num(r.attempted),
    autoApproved: num(r.auto_approved),
    reviewed: num(r.reviewed),
    approved: num(r.approved),
  };
}

export async function postSeries(ctx: Ctx, s: Scope) {
  const data = sql`select ${bucketOfTs(sql`p.created_at`, s.range.interval)} as bucket, count(*) as "posts", count(p.answered_at) as "answered"
    from ${postsInScope(s)} group by 1`;
  const res = await ctx.db.execute<{ bucket: string; posts: number; answered: number }>(filledSeries(s.range, data, ['posts', 'answered']));
  return res.rows;
}

/** `GET /analytics/community`: posts, answer rate, median time to first answer, auto-answer and approval rates. */
export async function communityAnalytics(ctx: Ctx, q: DashboardQuery): Promise<CommunityAnalytics> {
  const scope = await resolveScope(ctx, q);
  const [f, series] = await Promise.all([postFacts(ctx, scope), postSeries(ctx, scope)]);
  return {
    range: rangeView(scope.range),
    batchId: scope.batchId,
    posts: f.posts,
    answered: f.answered,
    answerRate: rate(f.answered, f.posts),
    medianTimeToFirstAnswerHours: f.medianHours,
    autoAnswer: {
      attempted: f.attempted,
      autoApproved: f.autoApproved,
      autoAnswerRate: rate(f.autoApproved, f.posts),
      reviewed: f.reviewed,
      approved: f.approved,
      approvalRate: rate(f.approved, f.reviewed),
    },
    series,
  };
}
