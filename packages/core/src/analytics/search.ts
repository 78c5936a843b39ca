import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { rangeView } from './range.js';
import type { QueryCount as QueryCountSchema, SearchAnalytics } from './schemas.js';
import { type DashboardQuery, resolveScope, type Scope } from './scope.js';
import { allQueriesSql, type SearchSplit, searchDays, splitSearchRange, topQueriesSql } from './search-source.js';
import { bucketOfDay, filledSeries, inProgram, num, rate } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;
type QueryCount = (typeof QueryCountSchema)['static'];

export interface SearchTotals {
  searches: number;
  zeroResults: number;
  cacheHits: number;
  degraded: number;
  /** Mean latency over the searches that recorded one; null without any. */
  avgLatencyMs: number | null;
}

export async function searchTotals(ctx: Ctx, split: SearchSplit, batchId: string | null): Promise<SearchTotals> {
  const res = await ctx.db.execute<Record<string, string | number | null>>(sql`
    select sum(searches) as searches, sum(zero_results) as zero, sum(cache_hits) as hits, sum(degraded) as degraded,
      sum(latency_sum) as lsum, sum(latency_count) as lcount
    from (${searchDays(split, batchId)}) d`);
  const r = res.rows[0] ?? {};
  const lcount = num(r.lcount);
  return {
    searches: num(r.searches),
    zeroResults: num(r.zero),
    cacheHits: num(r.hits),
    degraded: num(r.degraded),
    avgLatencyMs: lcount > 0 ? Math.round((num(r.lsum) / lcount) * 10) / 10 : null,
  };
}

export async function searchSeries(ctx: Ctx, scope: Scope, split: SearchSplit) {
  const data = sql`select ${bucketOfDay(sql`day`, scope.range.interval)} as bucket, sum(searches) as "searches",
      sum(zero_results) as "zeroResults", sum(cache_hits) as "cacheHits"
    from (${searchDays(split, scope.batchId)}) d group by 1`;
  const res = await ctx.db.execute<{ bucket: string; searches: number; zeroResults: number; cacheHits: number }>(
    filledSeries(scope.range, data, ['searches', 'zeroResults', 'cacheHits']),
  );
  return res.rows;
}

/** The most searched queries of the range; `zeroOnly`: those that found nothing, by how often (see topQueriesSql). */
export async function topQueries(
  ctx: Ctx,
  split: SearchSplit,
  batchId: string | null,
  limit: number,
  zeroOnly = false,
): Promise<QueryCount[]> {
  const res = await ctx.db.execute<{ query: string; searches: string; zero_results: string; bound: string }>(
    topQueriesSql(split, batchId, limit, zeroOnly),
  );
  let rows: { query: string; searches: string; zero_results: string }[] = res.rows;
  // Exact when nothing outside the candidates can reach the list (topQueriesSql); else sum every query of the range.
  const bound = num(res.rows[0]?.bound);
  const last = res.rows[limit - 1];
  const exact = bound === 0 || (last !== undefined && num(zeroOnly ? last.zero_results : last.searches) > bound);
  if (!exact) rows = (await ctx.db.execute<(typeof rows)[number]>(allQueriesSql(split, batchId, limit, zeroOnly))).rows;
  return rows.map((r) => ({ query: r.query, searches: num(r.searches), zeroResults: num(r.zero_results) }));
}

/** Open unresolved searches now, resolved ones within the range, and the most logged open ones. */
export async function unresolvedSummary(ctx: Ctx, scope: Scope, limit: number) {
  const prog = inProgram(sql`batch_id`, scope.batchId);
  const [counts, top] = await Promise.all([
    ctx.db.execute<{ open: number; resolved: number }>(sql`
      select (select count(*)::int from unresolved_searches where status = 'open'${prog}) as open,
        (select count(*)::int from unresolved_searches where status = 'resolved'
          and resolved_at >= ${scope.range.start.toISOString()}::timestamptz and resolved_at < ${scope.range.end.toISOString()}::timestamptz${prog}) as resolved`),
    ctx.db.execute<{ id: string; query: string; count: number; last_seen_at: Date | string }>(sql`
      select id, query, count, last_seen_at from unresolved_searches where status = 'open'${prog}
      order by count desc, last_seen_at desc, id limit ${limit}`),
  ]);
  return {
    open: counts.rows[0]?.open ?? 0,
    resolved: counts.rows[0]?.resolved ?? 0,
    top: top.rows.map((r) => ({ id: r.id, query: r.query, count: r.count, lastSeenAt: new Date(r.last_seen_at) })),
  };
}

/** `GET /analytics/search`: volume, zero-result and cache-hit rates, a series, top queries, unresolved searches. */
export async function searchAnalytics(ctx: Ctx, q: DashboardQuery): Promise<SearchAnalytics> {
  const scope = await resolveScope(ctx, q, { series: true });
  const split = await splitSearchRange(ctx, scope.range);
  const limit = q.limit ?? 10;
  const [totals, series, top, unresolved] = await Promise.all([
    searchTotals(ctx, split, scope.batchId),
    searchSeries(ctx, scope, split),
    topQueries(ctx, split, scope.batchId, limit),
    unresolvedSummary(ctx, scope, limit),
  ]);
  return {
    range: rangeView(scope.range),
    batchId: scope.batchId,
    searches: totals.searches,
    zeroResults: totals.zeroResults,
    zeroResultRate: rate(totals.zeroResults, totals.searches),
    cacheHits: totals.cacheHits,
    cacheHitRate: rate(totals.cacheHits, totals.searches),
    series,
    topQueries: top,
    unresolved,
  };
}
