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

/** One row per day, program and query: `normalized_query, searches, zero_results`. */
export function searchQueries(s: SearchSplit, batchId: string | null): SQL {
  const rolled = s.rolled ? sql`day between ${s.rolled.from}::date and ${s.rolled.to}::date${inProgram(sql`batch_id`, batchId)}` : none;
  const live = s.live
    ? sql`created_at >= ${s.live.start.toISOString()}::timestamptz and created_at < ${s.live.end.toISOString()}::timestamptz${inProgram(sql`batch_id`, batchId)}`
    : none;
  return sql`
    select normalized_query, searches::bigint, zero_results::bigint from search_query_daily where ${rolled}
    union all
    select normalized_query, count::bigint, case when result_count = 0 then count else 0 end::bigint from search_logs where ${live}`;
}
