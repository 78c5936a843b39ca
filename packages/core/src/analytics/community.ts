import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import {
  COMMUNITY_FACTS,
  type CommunityFact,
  type CommunitySplit,
  communityDays,
  liveTimes,
  rolledDays,
  splitCommunityDays,
} from './community-rollup.js';
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
 * The median time to first answer of the range's answered posts, in hours (2 decimals), exactly as
 * `percentile_cont(0.5)` over every post, without reading every post: answer_time_daily (rolled days)
 * and the live days' posts give the posts per answer-time bucket; the bucket holding each middle rank
 * is then read alone (community_posts_answer_time_idx: that bucket's posts of the range, in order).
 */
export async function medianAnswerHours(ctx: Ctx, s: Scope, split: CommunitySplit): Promise<number | null> {
  const live = liveTimes(split, sql`p.created_at`);
  const hist = await ctx.db.execute<{ bucket: number; n: string; below: string }>(sql`
    with h as (
      select bucket, sum(n) as n from (
        select bucket, posts::bigint as n from answer_time_daily where ${rolledDays(split)}${inProgram(sql`batch_id`, s.batchId)}
        union all
        select answer_time_bucket(p.created_at, p.answered_at), count(*) from community_posts p
          where ${live} and p.answered_at is not null and p.deleted_at is null${inProgram(sql`p.batch_id`, s.batchId)} group by 1
      ) x group by bucket)
    select bucket, n, sum(n) over (order by bucket) - n as below from h where n > 0 order by bucket`);
  const buckets = hist.rows.map((r) => ({ bucket: r.bucket, n: Number(r.n), below: Number(r.below) }));
  const last = buckets[buckets.length - 1];
  if (!last) return null;
  const count = last.below + last.n;
  /** The value at 0-based rank r of the sorted answer times (seconds, float8 as percentile_cont reads them). */
  const at = async (r: number): Promise<number> => {
    const b = buckets.find((x) => r < x.below + x.n) as (typeof buckets)[number];
    const res = await ctx.db.execute<{ v: number | string }>(sql`
      select extract(epoch from p.answered_at - p.created_at)::float8 as v from community_posts p
      where answer_time_bucket(p.created_at, p.answered_at) = ${b.bucket}::int and ${inRange(sql`p.created_at`, s.range)}
        and p.answered_at is not null and p.deleted_at is null${inProgram(sql`p.batch_id`, s.batchId)}
      order by 1 offset ${r - b.below} limit 1`);
    return Number(res.rows[0]?.v);
  };
  // percentile_cont(0.5): the value at position (n - 1) / 2, interpolated between its two neighbours.
  const pos = (count - 1) / 2;
  const lo = Math.floor(pos);
  const [a, b] = await Promise.all([at(lo), lo === Math.ceil(pos) ? null : at(lo + 1)]);
  const m = b === null ? a : a + (pos - lo) * (b - a);
  return Math.round((m / 3600) * 100) / 100;
}

/** The range's post facts: counts from the rollup (and live days), the median live when asked for. */
export async function postFacts(ctx: Ctx, s: Scope, split: CommunitySplit, median = true): Promise<PostFacts> {
  const [t, medianHours] = await Promise.all([communityTotals(ctx, split, s.batchId), median ? medianAnswerHours(ctx, s, split) : null]);
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
  const scope = await resolveScope(ctx, q, { series: true });
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
