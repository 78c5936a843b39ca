import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { COMMUNITY_FACTS, type CommunityFact, type CommunitySplit, communityDays, splitCommunityDays } from './community-rollup.js';
import { rangeView } from './range.js';
import type { CommunityAnalytics } from './schemas.js';
import { type DashboardQuery, resolveScope, type Scope } from './scope.js';
import { bucketOfDay, filledSeries, inProgram, inRange, num, rate } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** Posts created in the range and program, not deleted (served by community_posts_analytics_*_idx): the live median. */
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

/** The range's days split between the rollup and the live tables (community-rollup.ts). */
export const scopeSplit = (ctx: Pick<CoreContext, 'db'>, s: Scope) => splitCommunityDays(ctx, s.range.from, s.range.to);

/** Every community fact of the split's days, summed (rollup and live). */
export async function communityTotals(ctx: Ctx, split: CommunitySplit, batchId: string | null): Promise<Record<CommunityFact, number>> {
  const sums = sql.raw(COMMUNITY_FACTS.map((c) => `sum(${c}) as ${c}`).join(', '));
  const res = await ctx.db.execute<Record<string, string | null>>(sql`select ${sums} from (${communityDays(split, batchId)}) d`);
  const r = res.rows[0] ?? {};
  return Object.fromEntries(COMMUNITY_FACTS.map((c) => [c, num(r[c])])) as Record<CommunityFact, number>;
}

/**
 * The median time to first answer of the range's answered posts, in hours (2 decimals): read live
 * (an index-only scan of the analytics index), since a median cannot be summed from daily rows.
 */
export async function medianAnswerHours(ctx: Ctx, s: Scope): Promise<number | null> {
  const res = await ctx.db.execute<{ median_s: string | number | null }>(sql`
    select percentile_cont(0.5) within group (order by extract(epoch from p.answered_at - p.created_at)) as median_s
    from ${postsInScope(s)} and p.answered_at is not null`);
  const m = res.rows[0]?.median_s;
  return m === null || m === undefined ? null : Math.round((num(m) / 3600) * 100) / 100;
}

/** The range's post facts: counts from the rollup (and live days), the median live when asked for. */
export async function postFacts(ctx: Ctx, s: Scope, split: CommunitySplit, median = true): Promise<PostFacts> {
  const [t, medianHours] = await Promise.all([communityTotals(ctx, split, s.batchId), median ? medianAnswerHours(ctx, s) : null]);
  return {
    posts: t.posts,
    answered: t.answered,
    medianHours,
    attempted: t.ai_attempted,
    autoApproved: t.ai_auto_approved,
    reviewed: t.ai_reviewed,
    approved: t.ai_approved,
  };
}

/** A series of community facts per bucket: `metrics` maps each output name to a fact. */
export async function communitySeries<K extends string>(
  ctx: Ctx,
  s: Scope,
  split: CommunitySplit,
  metrics: Record<K, CommunityFact>,
): Promise<({ bucket: string } & Record<K, number>)[]> {
  const names = Object.keys(metrics) as K[];
  const cols = sql.raw(names.map((k) => `sum(${metrics[k]}) as "${k}"`).join(', '));
  const data = sql`select ${bucketOfDay(sql`day`, s.range.interval)} as bucket, ${cols} from (${communityDays(split, s.batchId)}) d group by 1`;
  const res = await ctx.db.execute<{ bucket: string } & Record<K, number>>(filledSeries(s.range, data, names));
  return res.rows as ({ bucket: string } & Record<K, number>)[];
}

export async function postSeries(ctx: Ctx, s: Scope, split: CommunitySplit) {
  return communitySeries(ctx, s, split, { posts: 'posts', answered: 'answered' });
}

/** `GET /analytics/community`: posts, answer rate, median time to first answer, auto-answer and approval rates. */
export async function communityAnalytics(ctx: Ctx, q: DashboardQuery): Promise<CommunityAnalytics> {
  const scope = await resolveScope(ctx, q);
  const split = await scopeSplit(ctx, scope);
  const [f, series] = await Promise.all([postFacts(ctx, scope, split), postSeries(ctx, scope, split)]);
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
