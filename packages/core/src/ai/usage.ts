import { aiConfigs, aiUsage } from '@cfaq/db/schema/index';
import { asc, eq, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { AI_CONFIG_SCOPE } from './settings.js';

export interface UsageDelta {
  provider: string;
  model: string;
  pipeline: string;
  batchId: string | null;
  failed: boolean;
  retries: number;
  inputTokens: number;
  outputTokens: number;
}

/** Adds one call to its provider + model + pipeline + program row (a single upsert, safe under concurrency). */
export async function recordUsage(ctx: Pick<CoreContext, 'pool' | 'clock'>, d: UsageDelta): Promise<void> {
  await ctx.pool.query(
    `INSERT INTO ai_usage (provider, model, pipeline, batch_id, calls, failures, retries, input_tokens, output_tokens, last_used_at)
     VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $8, $9)
     ON CONFLICT ON CONSTRAINT ai_usage_key DO UPDATE SET
       calls = ai_usage.calls + 1,
       failures = ai_usage.failures + EXCLUDED.failures,
       retries = ai_usage.retries + EXCLUDED.retries,
       input_tokens = ai_usage.input_tokens + EXCLUDED.input_tokens,
       output_tokens = ai_usage.output_tokens + EXCLUDED.output_tokens,
       last_used_at = EXCLUDED.last_used_at,
       updated_at = now()`,
    [d.provider, d.model, d.pipeline, d.batchId, d.failed ? 1 : 0, d.retries, d.inputTokens, d.outputTokens, ctx.clock.now()],
  );
}

export interface UsageRow {
  provider: string;
  model: string;
  pipeline: string;
  batchId: string | null;
  calls: number;
  failures: number;
  retries: number;
  inputTokens: number;
  outputTokens: number;
  lastUsedAt: Date | null;
}

export interface UsageReport {
  since: Date | null;
  totals: { calls: number; failures: number; retries: number; inputTokens: number; outputTokens: number };
  rows: UsageRow[];
}

export async function usageReport(ctx: Pick<CoreContext, 'db'>): Promise<UsageReport> {
  const rows = await ctx.db.select().from(aiUsage).orderBy(asc(aiUsage.provider), asc(aiUsage.model), asc(aiUsage.pipeline));
  const [cfg] = await ctx.db.select({ at: aiConfigs.usageResetAt }).from(aiConfigs).where(eq(aiConfigs.scope, AI_CONFIG_SCOPE)).limit(1);
  const totals = { calls: 0, failures: 0, retries: 0, inputTokens: 0, outputTokens: 0 };
  const out = rows.map((r) => {
    totals.calls += r.calls;
    totals.failures += r.failures;
    totals.retries += r.retries;
    totals.inputTokens += r.inputTokens;
    totals.outputTokens += r.outputTokens;
    return {
      provider: r.provider,
      model: r.model,
      pipeline: r.pipeline,
      batchId: r.batchId,
      calls: r.calls,
      failures: r.failures,
      retries: r.retries,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      lastUsedAt: r.lastUsedAt ?? null,
    };
  });
  return { since: cfg?.at ?? null, totals, rows: out };
}

/** Deletes the counters; returns how many rows there were. The caller records the reset time on the config row. */
export async function clearUsage(tx: Pick<CoreContext, 'db'>['db']): Promise<number> {
  const res = await tx.execute(sql`DELETE FROM ai_usage`);
  return (res as unknown as { rowCount?: number }).rowCount ?? 0;
}
