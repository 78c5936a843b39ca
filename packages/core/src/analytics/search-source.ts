import { type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { DAY_MS } from '../runtime/clock.js';
import type { DateRange } from './range.js';
import { searchRolledThrough } from './rollup.js';
import { inProgram } from './sql.js';

/**
 * Where a range's search facts come from: the days up to the rollup's last day from the daily
 * rollups, the days after it (today, and any day the worker has not rolled yet) from search_logs
 * through its (batch_id, created_at) or (created_at) index. Without a rollup everything is live,
 * so the answers are the same, only slower.
 */
export interface SearchSplit {
  /** Days served by the rollup, inclusive; null when none are. */
  rolled: { from: string; to: string } | null;
  /** Timestamps served by search_logs, half-open; null when none are. */
  live: { start: Date; end: Date } | null;
}

export async function splitSearchRange(ctx: Pick<CoreContext, 'db'>, r: DateRange): Promise<SearchSplit> {
  const through = await searchRolledThrough(ctx);
  if (!through || through < r.from) return { rolled: null, live: { start: r.start, end: r.end } };
  // The earlier of the two days (YYYY-MM-DD strings sort as dates).
  const rolledTo = [through, r.to].sort()[0] as string;
  const liveStart = new Date(Date.parse(`${rolledTo}T00:00:00Z`) + DAY_MS);
  return { rolled: { from: r.from, to: rolledTo }, live: liveStart < r.end ? { start: liveStart, end: r.end } : null };
}

const none = sql`false`;

/**
 * One row per day and program fact, rollup and live alike: `day date, searches, zero_results,
 * cache_hits, degraded, latency_sum, latency_count`.
 */
export function searchDays(s: SearchSplit, batchId: string | null): SQL {
  const rolled = s.rolled ? sql`day between ${s.rolled.from}::date and ${s.rolled.to}::date${inProgram(sql`batch_id`, batchId)}` : none;
  const live = s.live
    ? sql`created_at >= ${s.live.start.toISOString()}::timestamptz and created_at < ${s.live.end.toISOString()}::timestamptz${inProgram(sql`batch_id`, batchId)}`
    : none;
  return sql`
    select day, searches::bigint, zero_results::bigint, cache_hits::bigint, degraded::bigint, latency_sum, latency_count::bigint
    from search_daily_stats where ${rolled}
    union all
    select (created_at at time zone 'UTC')::date, count::bigint,
      case when result_count = 0 then count else 0 end::bigint, case when cache_hit then count else 0 end::bigint,
      case when degraded then count else 0 end::bigint,
      case when latency_ms is null then 0 else latency_ms::bigint * count end, case when latency_ms is null then 0 else count end::bigint
    from search_logs where ${live}`;
}

/** How many of each day's leaders (per program, by searches and by zero results) a top list looks at. */
export const LEADERS_PER_DAY = 50;

/**
 * Top queries of a range, exactly, without grouping every query of every day when it can. A query
 * below its program's LEADERS_PER_DAY on a rolled day (ranks hold ties together) counts strictly
 * fewer there than that day's last leader, so over the range at most `bound`: the sum, over the days
 * and programs with a query below their leaders, of (last leader's count - 1). The estimate of a
 * query is its leader rows (the partial index search_query_daily_leaders_idx) plus its live days; its
 * true count lies between the estimate and the estimate plus `bound`. The candidates are the queries
 * whose estimate plus `bound` reaches the limit-th best estimate (no other can enter the list); their
 * counts are summed exactly over the whole range (rollup and live). Rows: `query, searches,
 * zero_results, bound`, best first. A query that is no leader on any rolled day and has no live
 * count counts at most `bound`: when the last of `limit` rows counts more (or bound is 0), the list
 * is exact; otherwise the caller answers with `allQueriesSql` (topQueries in search.ts).
 */
export function topQueriesSql(s: SearchSplit, batchId: string | null, limit: number, zeroOnly: boolean): SQL {
  const rolled = rolledWhere(s, batchId);
  // A literal, so the planner matches the partial index search_query_daily_leaders_idx (<= 100).
  const leaders = sql.raw(String(LEADERS_PER_DAY));
  const rank = zeroOnly ? sql`zero_rank` : sql`searches_rank`;
  const v = zeroOnly ? sql`z` : sql`s`;
  const score = zeroOnly ? sql`zero_results` : sql`searches`;
  const order = zeroOnly ? sql`zero_results desc, searches desc, query` : sql`searches desc, query`;
  return sql`
    with live as (${liveQueries(s, batchId)}),
    leaders as (
      select day, batch_id, normalized_query as q, searches::bigint as s, zero_results::bigint as z from search_query_daily
        where ${rolled} and (searches_rank <= ${leaders} or zero_rank <= ${leaders}) and ${rank} <= ${leaders}),
    bound as (
      -- A day and program with fewer leader rows than LEADERS_PER_DAY has no query below them.
      select coalesce(sum(t - 1), 0)::bigint as b from (
        select case when count(*) >= ${leaders} then min(${v}) else 0 end as t from leaders group by day, batch_id) d where t > 1),
    estimate as (
      select q, sum(${v}) as v from (select q, s, z from leaders union all select q, s, z from live) e group by q having sum(${v}) > 0),
    kth as (select coalesce((select v from estimate order by v desc offset ${limit - 1} limit 1), 0) as k),
    cand as (select q from estimate where v + (select b from bound) >= (select k from kth)),
    rolled as (
      select normalized_query as q, sum(searches)::bigint as s, sum(zero_results)::bigint as z
      from search_query_daily where normalized_query in (select q from cand) and ${rolled} group by 1)
    select t.*, (select b from bound) as bound from (
      select c.q as query, coalesce(r.s, 0) + coalesce(l.s, 0) as searches, coalesce(r.z, 0) + coalesce(l.z, 0) as zero_results
      from cand c left join rolled r on r.q = c.q left join live l on l.q = c.q) t
    where ${score} > 0
    order by ${order} limit ${limit}`;
}

/** The exact top list over every query of the range (every rolled row of it): when topQueriesSql cannot vouch for its list. */
export function allQueriesSql(s: SearchSplit, batchId: string | null, limit: number, zeroOnly: boolean): SQL {
  const score = zeroOnly ? sql`sum(z)` : sql`sum(s)`;
  const order = zeroOnly ? sql`zero_results desc, searches desc, query` : sql`searches desc, query`;
  return sql`
    with live as (${liveQueries(s, batchId)})
    select q as query, sum(s)::bigint as searches, sum(z)::bigint as zero_results from (
      select normalized_query as q, searches::bigint as s, zero_results::bigint as z from search_query_daily where ${rolledWhere(s, batchId)}
      union all select q, s, z from live) t
    group by 1 having ${score} > 0 order by ${order} limit ${limit}`;
}

const rolledWhere = (s: SearchSplit, batchId: string | null) =>
  s.rolled ? sql`day between ${s.rolled.from}::date and ${s.rolled.to}::date${inProgram(sql`batch_id`, batchId)}` : none;

/** Rows `q, s, z`: each query's searches and zero-result searches on the live days. */
function liveQueries(s: SearchSplit, batchId: string | null): SQL {
  const live = s.live
    ? sql`created_at >= ${s.live.start.toISOString()}::timestamptz and created_at < ${s.live.end.toISOString()}::timestamptz${inProgram(sql`batch_id`, batchId)}`
    : none;
  return sql`
    select normalized_query as q, sum(count)::bigint as s, coalesce(sum(count) filter (where result_count = 0), 0)::bigint as z
    from search_logs where ${live} group by 1`;
}
