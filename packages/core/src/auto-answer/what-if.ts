import { pipelineResults } from '@cfaq/db/schema/index';
import { and, eq, type SQL } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import type { AutoAnswerVerdict, Thresholds, WhatIfReport } from './shape.js';
import { triageMatch } from './triage.js';

/**
 * Threshold what-if: re-triages the stored auto-answer results (still within PIPELINE_RESULT_TTL_DAYS)
 * with other thresholds and counts how many would change verdict. Sensitive and failed results stay
 * escalated whatever the thresholds, and a match whose sources the model found insufficient stays
 * suggested at most, as in a real run.
 */
export async function thresholdWhatIf(ctx: Pick<CoreContext, 'db'>, thresholds: Thresholds, batchId?: string): Promise<WhatIfReport> {
  const conds: SQL[] = [eq(pipelineResults.pipeline, 'auto_answer')];
  if (batchId) conds.push(eq(pipelineResults.batchId, batchId));
  const rows = await ctx.db
    .select({ verdict: pipelineResults.verdict, confidence: pipelineResults.confidence, metadata: pipelineResults.metadata })
    .from(pipelineResults)
    .where(and(...conds));
  const tally = new Map<string, number>();
  let evaluated = 0;
  for (const r of rows) {
    if (r.verdict !== 'approved' && r.verdict !== 'suggested' && r.verdict !== 'escalated') continue;
    evaluated++;
    const next = triageMatch(r.confidence, r.metadata?.sensitive != null, r.metadata?.providerNote != null, thresholds);
    if (next !== r.verdict) tally.set(`${r.verdict}>${next}`, (tally.get(`${r.verdict}>${next}`) ?? 0) + 1);
  }
  const transitions = [...tally].map(([k, n]) => {
    const [from, to] = k.split('>') as [AutoAnswerVerdict, AutoAnswerVerdict];
    return { from, to, count: n };
  });
  return { thresholds, evaluated, changed: transitions.reduce((s, t) => s + t.count, 0), transitions };
}
