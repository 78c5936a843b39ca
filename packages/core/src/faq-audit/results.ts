import { faqs, pipelineResults } from '@cfaq/db/schema/index';
import { and, count, desc, eq, gte, inArray, like, lte, type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { inLiveProgram } from '../programs/live.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { timeBounds } from '../shared/time-bounds.js';
import { AUDIT_VERDICTS, type AuditResultItem, type AuditStats, type AuditVerdict } from './shape.js';

export interface AuditResultsQuery extends PageQuery {
  verdict?: AuditVerdict | undefined;
  flagged?: boolean | undefined;
  from?: string | undefined;
  to?: string | undefined;
  batchId?: string | undefined;
  faqId?: string | undefined;
}

function conditions(q: Pick<AuditResultsQuery, 'verdict' | 'flagged' | 'from' | 'to' | 'batchId' | 'faqId'>): SQL {
  // from after to is a 400 naming query.from, as on the dashboards (not an empty answer).
  const { from, to } = timeBounds(q);
  return and(
    eq(pipelineResults.pipeline, 'faq_audit'),
    q.verdict ? eq(pipelineResults.verdict, q.verdict) : undefined,
    q.flagged !== undefined ? eq(pipelineResults.flagged, q.flagged) : undefined,
    from ? gte(pipelineResults.checkedAt, from) : undefined,
    to ? lte(pipelineResults.checkedAt, to) : undefined,
    q.batchId ? eq(pipelineResults.batchId, q.batchId) : inLiveProgram(sql`pipeline_results.batch_id`, { nullable: true }),
    q.faqId ? eq(pipelineResults.targetId, q.faqId) : undefined,
  ) as SQL;
}

export async function listAuditResults(ctx: Pick<CoreContext, 'db'>, q: AuditResultsQuery): Promise<Page<AuditResultItem>> {
  const w = pageWindow(q);
  const where = conditions(q);
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(pipelineResults)
      .where(where)
      .orderBy(desc(pipelineResults.checkedAt), desc(pipelineResults.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(pipelineResults).where(where),
  ]);
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return toPage(
    rows.map((r) => ({
      id: r.id,
      pipeline: 'faq_audit' as const,
      targetModel: 'FAQ' as const,
      targetId: r.targetId,
      targetTitle: r.targetTitle,
      metadata: r.metadata,
      faqId: r.targetId,
      question: r.targetTitle,
      batchId: r.batchId,
      // A faq_audit row holds one of the audit's verdicts (the pipeline_verdict enum also has auto-answer's).
      verdict: r.verdict as AuditVerdict,
      flagged: r.flagged,
      score: r.score,
      confidence: r.confidence,
      reason: str(r.metadata.reason),
      sources: r.sources,
      evidence: Array.isArray(r.metadata.evidence) ? (r.metadata.evidence as AuditResultItem['evidence']) : [],
      knowledgeSearch: str(r.metadata.knowledgeSearch),
      error: str(r.metadata.error),
      runId: str(r.metadata.runId),
      checkedAt: r.checkedAt,
    })),
    total?.n ?? 0,
    w,
  );
}

/** `GET /admin/audit/stats`: counts per verdict (within the filters), open audit flags, the last run. */
export async function auditStats(ctx: Pick<CoreContext, 'db'>, q: Pick<AuditResultsQuery, 'from' | 'to' | 'batchId'>): Promise<AuditStats> {
  const where = conditions(q);
  const [perVerdict, [open], [last]] = await Promise.all([
    ctx.db
      .select({
        verdict: pipelineResults.verdict,
        n: count(),
        flagged: sql<number>`count(*) filter (where ${pipelineResults.flagged})::int`,
      })
      .from(pipelineResults)
      .where(where)
      .groupBy(pipelineResults.verdict),
    ctx.db
      .select({ n: count() })
      .from(faqs)
      .where(
        and(
          inArray(faqs.reviewStatus, ['pending_review', 'update_requested']),
          eq(faqs.flagType, 'auto'),
          like(faqs.flagReason, '[AI Audit]%'),
          q.batchId ? eq(faqs.batchId, q.batchId) : inLiveProgram(sql`faqs.batch_id`),
        ),
      ),
    ctx.db
      .select({ runId: sql<string | null>`${pipelineResults.metadata}->>'runId'`, at: pipelineResults.checkedAt })
      .from(pipelineResults)
      // The program's last run when one is asked for (a run over every program counts its rows there).
      .where(and(eq(pipelineResults.pipeline, 'faq_audit'), q.batchId ? eq(pipelineResults.batchId, q.batchId) : undefined))
      .orderBy(desc(pipelineResults.checkedAt), desc(pipelineResults.id))
      .limit(1),
  ]);
  const byVerdict = Object.fromEntries(AUDIT_VERDICTS.map((v) => [v, 0])) as Record<AuditVerdict, number>;
  let total = 0;
  let flagged = 0;
  for (const r of perVerdict) {
    if ((AUDIT_VERDICTS as readonly string[]).includes(r.verdict)) byVerdict[r.verdict as AuditVerdict] = r.n;
    total += r.n;
    flagged += r.flagged;
  }
  let lastRun: AuditStats['lastRun'] = null;
  if (last) {
    const [run] = last.runId
      ? await ctx.db
          // Checked as the run's own answer counts it: a FAQ the provider could not assess is a result row, not a check.
          .select({
            n: sql<number>`count(*) filter (where ${pipelineResults.metadata}->>'error' is null)::int`,
            flagged: sql<number>`count(*) filter (where ${pipelineResults.flagged})::int`,
          })
          .from(pipelineResults)
          .where(
            and(
              eq(pipelineResults.pipeline, 'faq_audit'),
              sql`${pipelineResults.metadata}->>'runId' = ${last.runId}`,
              q.batchId ? eq(pipelineResults.batchId, q.batchId) : undefined,
            ),
          )
      : [{ n: 1, flagged: 0 }];
    lastRun = { runId: last.runId, at: last.at, checked: run?.n ?? 0, flagged: run?.flagged ?? 0 };
  }
  return { total, flagged, byVerdict, openFlags: open?.n ?? 0, lastRun };
}
