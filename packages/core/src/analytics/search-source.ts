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
 * Top queries of a range without grouping every query of every day. First an estimate: the range's
 * sums over the rows where a query was among its program's LEADERS_PER_DAY that day (a partial
 * index, at most 100 rows a day and program) plus the live days' full counts; its best 4 x limit
 * are the candidates, whose counts are then summed exactly over the whole range (rollup and live).
 * Rows: `query, searches, zero_results`, best first. A query never among a day's leaders is not
 * ranked, however long its tail.
 */
export function topQueriesSql(s: SearchSplit, batchId: string | null, limit: number, zeroOnly: boolean): SQL {
  const rolled = s.rolled ? sql`day between ${s.rolled.from}::date and ${s.rolled.to}::date${inProgram(sql`batch_id`, batchId)}` : none;
  const live = s.live
    ? sql`created_at >= ${s.live.start.toISOString()}::timestamptz and created_at < ${s.live.end.toISOString()}::timestamptz${inProgram(sql`batch_id`, batchId)}`
    : none;
  // A literal, so the planner matches the partial index search_query_daily_leaders_idx (<= 100).
  const leaders = sql.raw(String(LEADERS_PER_DAY));
  const score = zeroOnly ? sql`sum(z)` : sql`sum(s)`;
  const order = zeroOnly ? sql`zero_results desc, searches desc, query` : sql`searches desc, query`;
  return sql`
    with live as (
      select normalized_query as q, sum(count)::bigint as s, coalesce(sum(count) filter (where result_count = 0), 0)::bigint as z
      from search_logs where ${live} group by 1),
    estimate as (
      select normalized_query as q, searches::bigint as s, zero_results::bigint as z from search_query_daily
        where ${rolled} and (searches_rank <= ${leaders} or zero_rank <= ${leaders})
      union all select q, s, z from live),
    cand as (select q from estimate group by q having ${score} > 0 order by ${score} desc, q limit ${limit * 4}),
    rolled as (
      select normalized_query as q, sum(searches)::bigint as s, sum(zero_results)::bigint as z
      from search_query_daily where normalized_query in (select q from cand) and ${rolled} group by 1)
    select * from (
      select c.q as query, coalesce(r.s, 0) + coalesce(l.s, 0) as searches, coalesce(r.z, 0) + coalesce(l.z, 0) as zero_results
      from cand c left join rolled r on r.q = c.q left join live l on l.q = c.q) t
    order by ${order} limit ${limit}`;
}
