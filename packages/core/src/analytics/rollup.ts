import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { DAY_MS } from '../runtime/clock.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'log'>;

export const SEARCH_ROLLUP = 'search';

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** The last day the search rollup holds (UTC, inclusive); null before its first run. */
export async function searchRolledThrough(ctx: Pick<CoreContext, 'db'>): Promise<string | null> {
  const res = await ctx.db.execute<{ d: string }>(
    sql`select to_char(rolled_through, 'YYYY-MM-DD') as d from analytics_rollups where name = ${SEARCH_ROLLUP}`,
  );
  return res.rows[0]?.d ?? null;
}

export interface RollupResult {
  /** First and last day recomputed; null when there was nothing to do. */
  from: string | null;
  to: string | null;
  days: number;
}

/**
 * Rolls search_logs up into search_daily_stats and search_query_daily for every complete UTC day
 * (yesterday and before) not yet rolled, recomputing the last rolled day too: search logs are
 * flushed in batches, so rows stamped just before midnight can land after a run. Each day is
 * deleted and re-inserted in one transaction under an advisory lock, so two workers never
 * double-count and a run can be repeated at will. The first run starts at the oldest log row.
 */
export async function rollUpSearchLogs(ctx: Ctx): Promise<RollupResult> {
  const lastComplete = ymd(new Date(startOfDay(ctx.clock.now()).getTime() - DAY_MS));
  const result = await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('analytics.rollup.search'))`);
    const state = await tx.execute<{ d: string | null }>(sql`
      select coalesce(
        (select to_char(rolled_through, 'YYYY-MM-DD') from analytics_rollups where name = ${SEARCH_ROLLUP}),
        (select to_char((min(created_at) at time zone 'UTC')::date, 'YYYY-MM-DD') from search_logs)) as d`);
    let from = state.rows[0]?.d ?? null;
    if (!from) return { from: null, to: null, days: 0 };
    // The last rolled day is recomputed only while its raw rows are still there (never wipe a day
    // the retention job has already emptied).
    const dayStart = `${from}T00:00:00Z`;
    const kept = await tx.execute<{ kept: boolean }>(sql`
      select exists (select 1 from search_logs
        where created_at >= ${dayStart}::timestamptz and created_at < ${dayStart}::timestamptz + interval '1 day') as kept`);
    if (!kept.rows[0]?.kept) from = new Date(Date.parse(`${from}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
    if (from > lastComplete) return { from: null, to: null, days: 0 };
    const start = `${from}T00:00:00Z`;
    const end = new Date(Date.parse(`${lastComplete}T00:00:00Z`) + DAY_MS).toISOString();
    await tx.execute(sql`delete from search_daily_stats where day between ${from}::date and ${lastComplete}::date`);
    await tx.execute(sql`delete from search_query_daily where day between ${from}::date and ${lastComplete}::date`);
    await tx.execute(sql`
      insert into search_daily_stats (day, batch_id, searches, zero_results, cache_hits, degraded, latency_sum, latency_count)
      select (created_at at time zone 'UTC')::date, batch_id, sum(count),
        coalesce(sum(count) filter (where result_count = 0), 0), coalesce(sum(count) filter (where cache_hit), 0),
        coalesce(sum(count) filter (where degraded), 0),
        coalesce(sum(latency_ms::bigint * count) filter (where latency_ms is not null), 0),
        coalesce(sum(count) filter (where latency_ms is not null), 0)
      from search_logs where created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
      group by 1, 2`);
    await tx.execute(sql`
      insert into search_query_daily (day, batch_id, normalized_query, searches, zero_results, searches_rank, zero_rank)
      select day, batch_id, normalized_query, searches, zero_results,
        rank() over (partition by day, batch_id order by searches desc),
        case when zero_results > 0 then rank() over (partition by day, batch_id order by zero_results desc) end
      from (
        select (created_at at time zone 'UTC')::date as day, batch_id, normalized_query, sum(count) as searches,
          coalesce(sum(count) filter (where result_count = 0), 0) as zero_results
        from search_logs where created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
        group by 1, 2, 3) q`);
    await tx.execute(sql`
      insert into analytics_rollups (name, rolled_through, updated_at) values (${SEARCH_ROLLUP}, ${lastComplete}::date, now())
      on conflict (name) do update set rolled_through = excluded.rolled_through, updated_at = excluded.updated_at`);
    const days = Math.round((Date.parse(lastComplete) - Date.parse(from)) / DAY_MS) + 1;
    return { from, to: lastComplete, days };
  });
  ctx.log.info({ rollup: result }, '[pipeline] analytics.rollup done');
  return result;
}
