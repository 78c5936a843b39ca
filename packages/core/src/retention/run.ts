import { confOauthStates, pipelineResults, refreshTokens, searchLogs } from '@cfaq/db/schema/index';
import { lt } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { DAY_MS } from '../runtime/clock.js';

export interface RetentionResult {
  pipelineResults: number;
  searchLogs: number;
  refreshTokens: number;
  oauthStates: number;
}

/**
 * Postgres has no TTL index: this deletes what has outlived its retention. PipelineResult after
 * PIPELINE_RESULT_TTL_DAYS, SearchLog after SEARCH_LOG_RETENTION_DAYS (90), refresh tokens once
 * expired (revoked ones are kept until then, so reuse detection keeps working), OAuth states once
 * expired.
 */
export async function runRetention(ctx: Pick<CoreContext, 'db' | 'config' | 'clock' | 'log'>): Promise<RetentionResult> {
  const now = ctx.clock.now();
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const { db, config } = ctx;

  const pr = await db
    .delete(pipelineResults)
    .where(lt(pipelineResults.checkedAt, before(config.PIPELINE_RESULT_TTL_DAYS)))
    .returning({ id: pipelineResults.id });
  const sl = await db
    .delete(searchLogs)
    .where(lt(searchLogs.createdAt, before(config.SEARCH_LOG_RETENTION_DAYS)))
    .returning({ id: searchLogs.id });
  const rt = await db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now)).returning({ id: refreshTokens.id });
  const os = await db.delete(confOauthStates).where(lt(confOauthStates.expiresAt, now)).returning({ id: confOauthStates.id });

  const result = { pipelineResults: pr.length, searchLogs: sl.length, refreshTokens: rt.length, oauthStates: os.length };
  ctx.log.info({ retention: result }, '[pipeline] retention done');
  return result;
}
