import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { DAY_MS } from '../runtime/clock.js';

export interface RetentionResult {
  pipelineResults: number;
  searchLogs: number;
  searchQueryRollup: number;
  refreshTokens: number;
  oauthStates: number;
  teaWithdrawals: number;
}

type Ctx = Pick<CoreContext, 'db' | 'config' | 'clock' | 'log'>;

/**
 * Deletes the rows of `table` whose `column` is before `cutoff`, RETENTION_BATCH_SIZE rows per
 * statement. Each statement is its own short transaction (autocommit) that locks only the rows it
 * deletes, found through the column's index, so a large backlog never holds a long lock or a long
 * transaction and writers of new rows are never blocked. Returns the number deleted.
 */
export async function deleteInBatches(ctx: Ctx, table: string, column: string, cutoff: Date): Promise<number> {
  const batch = ctx.config.RETENTION_BATCH_SIZE;
  let total = 0;
  for (;;) {
    const res = await ctx.db.execute(sql`
      delete from ${sql.identifier(table)} where ctid = any (array(
        select ctid from ${sql.identifier(table)} where ${sql.identifier(column)} < ${cutoff}
        limit ${batch} for update skip locked))`);
    const n = res.rowCount ?? 0;
    total += n;
    if (n < batch) return total;
  }
}

/**
 * Postgres has no TTL index: this deletes what has outlived its retention. PipelineResult after
 * PIPELINE_RESULT_TTL_DAYS (a row exactly that old is kept; older ones go), SearchLog after
 * SEARCH_LOG_RETENTION_DAYS (90), refresh tokens once expired (revoked ones are kept until then, so
 * reuse detection keeps working), OAuth states once expired, withdrawn tea drops' stream places after
 * TEA_WITHDRAWAL_RETENTION_DAYS. All in batches (deleteInBatches).
 */
export async function runRetention(ctx: Ctx): Promise<RetentionResult> {
  const now = ctx.clock.now();
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const result = {
    pipelineResults: await deleteInBatches(ctx, 'pipeline_results', 'checked_at', before(ctx.config.PIPELINE_RESULT_TTL_DAYS)),
    searchLogs: await deleteInBatches(ctx, 'search_logs', 'created_at', before(ctx.config.SEARCH_LOG_RETENTION_DAYS)),
    // The per-query rollup holds query text (user input): it goes with the log. Daily totals stay.
    searchQueryRollup: await deleteInBatches(ctx, 'search_query_daily', 'day', before(ctx.config.SEARCH_LOG_RETENTION_DAYS)),
    refreshTokens: await deleteInBatches(ctx, 'refresh_tokens', 'expires_at', now),
    oauthStates: await deleteInBatches(ctx, 'conf_oauth_states', 'expires_at', now),
    teaWithdrawals: await deleteInBatches(ctx, 'tea_withdrawals', 'withdrawn_at', before(ctx.config.TEA_WITHDRAWAL_RETENTION_DAYS)),
  };
  ctx.log.info({ retention: result }, '[pipeline] retention done');
  return result;
}
