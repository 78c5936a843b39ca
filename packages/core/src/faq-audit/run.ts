import { randomUUID } from 'node:crypto';
import { faqs, freshReviewLogs, pipelineResults } from '@cfaq/db/schema/index';
import { Type as T } from '@sinclair/typebox';
import { and, asc, eq, sql } from 'drizzle-orm';
import { generateStructured } from '../ai/generate.js';
import { type ResolvedAi, resolveAi } from '../ai/settings.js';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, notFound } from '../errors/index.js';
import { searchKnowledge } from '../knowledge/search.js';
import type { KnowledgeHit } from '../knowledge/shape.js';
import { inLiveProgram } from '../programs/live.js';
import type { Actor } from '../shared/db.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { type MatchedInsight, matchInsights } from './insights.js';
import type { AuditEvidence, AuditItemResult, AuditRunResult } from './shape.js';
import { type Judged, judgeWithAi, judgeWithoutContext } from './verdict.js';

type Ctx = Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'log' | 'clock' | 'embedder'>;

/** What the provider must answer (schema-checked by the AI layer). */
export const AuditJudgement = T.Object({
  score: T.Number({ minimum: 0, maximum: 1, description: 'how correct the FAQ is against the sources, 0-1' }),
  confidence: T.Number({ minimum: 0, maximum: 1, description: 'how sure you are of the score, 0-1' }),
  reason: T.String({ maxLength: 1000, description: 'one or two sentences' }),
  citedSourceIds: T.Array(T.String(), { maxItems: 10, description: 'ids of the sources the judgement rests on' }),
  evidence: T.Array(
    T.Object({
      sourceId: T.String(),
      quote: T.String({ maxLength: 600, description: 'the exact words of the source that conflict with the FAQ, copied verbatim' }),
    }),
    { maxItems: 5, description: 'passages that conflict with the FAQ (empty when it is correct)' },
  ),
});

export interface AuditRunOptions {
  dryRun?: boolean;
  /** Audit this FAQ only (any review status but draft); otherwise the scheduled batch. */
  faqId?: string;
  /**
   * The admin who ran it (POST /admin/audit/faqs): a run that writes (not a dry run) is audit-logged,
   * one row with its counts. The scheduled run has none.
   */
  actor?: Actor & { ip?: string | undefined };
  /**
   * The job's signal (aborted when the worker stops): the run stops between FAQs, and a provider call
   * it cuts short is not recorded, so the job's retry audits that FAQ (its lastCheckedAt unmoved).
   */
  signal?: AbortSignal | undefined;
}

type AuditFaq = Pick<
  typeof faqs.$inferSelect,
  'id' | 'batchId' | 'question' | 'answer' | 'reviewStatus' | 'createdAt' | 'lastVerifiedDate'
>;

const faqFields = {
  id: faqs.id,
  batchId: faqs.batchId,
  question: faqs.question,
  answer: faqs.answer,
  reviewStatus: faqs.reviewStatus,
  createdAt: faqs.createdAt,
  lastVerifiedDate: faqs.lastVerifiedDate,
};

/** The batch: approved FAQs, never checked first, then oldest lastCheckedAt, at most FAQ_AUDIT_BATCH_SIZE. */
async function selectBatch(ctx: Ctx, opts: AuditRunOptions): Promise<AuditFaq[]> {
  if (opts.faqId) {
    // A deleted program's FAQ is gone from every read by id, as an unknown id is (404, nothing run or logged).
    const [row] = await ctx.db
      .select(faqFields)
      .from(faqs)
      .where(and(eq(faqs.id, opts.faqId), inLiveProgram(faqs.batchId)))
      .limit(1);
    if (!row || row.reviewStatus === 'draft') throw notFound('FAQ', Code.FAQ_NOT_FOUND);
    return [row];
  }
  return ctx.db
    .select(faqFields)
    .from(faqs)
    .where(
      and(eq(faqs.reviewStatus, 'approved'), sql`exists (select 1 from batches b where b.id = ${faqs.batchId} and b.deleted_at is null)`),
    )
    .orderBy(sql`${faqs.lastCheckedAt} asc nulls first`, asc(faqs.createdAt), asc(faqs.id))
    .limit(ctx.config.FAQ_AUDIT_BATCH_SIZE);
}

async function neverVerified(ctx: Ctx, faqId: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: freshReviewLogs.id })
    .from(freshReviewLogs)
    .where(and(eq(freshReviewLogs.faqId, faqId), eq(freshReviewLogs.toStatus, 'verified')))
    .limit(1);
  return !row;
}

const normalize = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Keeps the evidence whose quote occurs verbatim (whitespace runs aside) in the source it names. */
export function checkEvidence(
  evidence: { sourceId: string; quote: string }[],
  sources: Map<string, { type: string; text: string }>,
): AuditEvidence[] {
  const out: AuditEvidence[] = [];
  for (const e of evidence) {
    const src = sources.get(e.sourceId);
    const quote = normalize(e.quote);
    if (!src || quote.length < 8) continue;
    if (normalize(src.text).includes(quote)) out.push({ sourceId: e.sourceId, sourceType: src.type, quote });
  }
  return out;
}

function buildPrompt(faq: AuditFaq, hits: KnowledgeHit[], insights: MatchedInsight[]) {
  const blocks = [
    ...hits.map((h) => `[source ${h.id}] (${h.sourceType}) ${h.title}\n${h.content}`),
    ...insights.map((i) => `[source ${i.id}] (meeting insight, ${i.status}) Q: ${i.question}\nA: ${i.answer}`),
  ];
  return [`FAQ question: ${faq.question}`, `FAQ answer: ${faq.answer}`, '', 'Knowledge sources:', blocks.join('\n\n')].join('\n');
}

const SYSTEM =
  'You audit a FAQ for correctness against the knowledge sources given, and nothing else. ' +
  'score: 1 when the sources fully support the answer, around 0.7 when details drifted, below 0.6 when they contradict it. ' +
  'confidence: how sure you are, low when the sources barely touch the question. ' +
  'citedSourceIds: ids of the sources you relied on. evidence: for each conflict, the source id and the exact conflicting words copied verbatim from that source.';

async function auditOne(
  ctx: Ctx,
  faq: AuditFaq,
  resolved: ResolvedAi,
  signal: AbortSignal | undefined,
): Promise<Omit<AuditItemResult, 'checked' | 'resultId'>> {
  // Only passages about the question count as context: without the floor any approved row of the
  // program did, so an FAQ the knowledge base says nothing about was judged against unrelated text
  // and the spec's stale verdict (no context, old, never verified) could not happen.
  const hits = await searchKnowledge(ctx, {
    query: faq.question,
    batchId: faq.batchId,
    k: 5,
    minScore: ctx.config.FAQ_AUDIT_KNOWLEDGE_MIN_SCORE,
  });
  const knowledgeSearch = hits === null ? 'failed' : 'ok';
  const insights = await matchInsights(ctx, faq);
  const base = {
    faqId: faq.id,
    question: faq.question,
    batchId: faq.batchId,
    knowledgeSearch,
    matchedInsights: insights.map((i) => i.id),
  } as const;
  const passages = hits ?? [];
  if (passages.length === 0 && insights.length === 0) {
    const judged = judgeWithoutContext(
      ctx.config,
      // Publishing sets lastVerifiedDate (README: the review interval runs from publication); never
      // verified since, it is the publication date. Never earlier than the FAQ itself.
      {
        publishedAt: new Date(Math.max(faq.createdAt.getTime(), faq.lastVerifiedDate.getTime())),
        neverVerified: await neverVerified(ctx, faq.id),
      },
      ctx.clock.now(),
    );
    const { note, ...verdict } = judged;
    return {
      ...base,
      ...verdict,
      reason: `${note}${hits === null ? ' (knowledge search failed)' : ''}`,
      sources: [],
      evidence: [],
      error: null,
    };
  }
  const ai = await generateStructured(ctx, {
    pipeline: 'faq_audit',
    batchId: faq.batchId,
    schema: AuditJudgement,
    schemaName: 'faq_audit_judgement',
    system: SYSTEM,
    prompt: buildPrompt(faq, passages, insights),
    resolved,
    ...(signal ? { signal } : {}),
  });
  if (!ai.ok) {
    return {
      ...base,
      verdict: 'skipped',
      flagged: false,
      score: null,
      confidence: null,
      reason: `AI step failed: ${ai.reason}`,
      sources: [],
      evidence: [],
      error: ai.reason,
    };
  }
  const sources = new Map<string, { type: string; text: string }>([
    ...passages.map((h) => [h.id, { type: h.sourceType, text: `${h.title}\n${h.content}` }] as const),
    ...insights.map((i) => [i.id, { type: 'conf_insight', text: `${i.question}\n${i.answer}` }] as const),
  ]);
  const since = faq.lastVerifiedDate.getTime();
  const judged: Judged = judgeWithAi(ctx.config, ai.value, {
    corroborating: insights.filter((i) => i.status === 'approved' && i.createdAt.getTime() <= since).length,
    newer: insights.filter((i) => i.createdAt.getTime() > since).length,
  });
  return {
    ...base,
    verdict: judged.verdict,
    flagged: judged.flagged,
    score: judged.score,
    confidence: judged.confidence,
    reason:
      judged.note && judged.verdict !== 'skipped'
        ? `${ai.value.reason} (${judged.note})`
        : judged.note && judged.verdict === 'skipped'
          ? judged.note
          : ai.value.reason,
    sources: ai.value.citedSourceIds.filter((id) => sources.has(id)),
    evidence: judged.flagged ? checkEvidence(ai.value.evidence, sources) : [],
    error: null,
  };
}

/** Writes one FAQ's outcome: lastCheckedAt; when flagged, the FAQ moves to pending_review; and its PipelineResult. */
async function record(ctx: Ctx, faq: AuditFaq, r: Omit<AuditItemResult, 'checked' | 'resultId'>, runId: string) {
  const now = ctx.clock.now();
  const checked = r.error === null;
  return ctx.db.transaction(async (tx) => {
    // Only a live FAQ (approved, or verified when one is audited by id) moves to review: one already under
    // review (pending_review, update_requested) keeps its round, votes and escalation clock; the verdict
    // is still recorded below.
    const movable = faq.reviewStatus === 'approved' || faq.reviewStatus === 'verified';
    if (checked && r.flagged && movable) {
      // The status it was read with must still hold (a manual or freshness flag meanwhile wins); reviewCycle + 1.
      const [moved] = await tx
        .update(faqs)
        .set({
          reviewStatus: 'pending_review',
          flagType: 'auto',
          flagReason: `[AI Audit] ${r.verdict}: ${r.reason}`.slice(0, 2000),
          flaggedAt: now,
          lastCheckedAt: now,
          reviewCycle: sql`${faqs.reviewCycle} + 1`,
          // A new round starts its escalation clock afresh, as a manual or freshness flag does.
          escalatedAt: null,
          updatedAt: now,
        })
        .where(and(eq(faqs.id, faq.id), eq(faqs.reviewStatus, faq.reviewStatus)))
        .returning({ reviewCycle: faqs.reviewCycle });
      if (moved) {
        await tx.insert(freshReviewLogs).values({
          faqId: faq.id,
          cycle: moved.reviewCycle,
          action: 'flagged',
          fromStatus: faq.reviewStatus,
          toStatus: 'pending_review',
          reason: `[AI Audit] ${r.verdict}`,
          details: { flagType: 'auto', runId },
          createdAt: now,
        });
      } else {
        await tx.update(faqs).set({ lastCheckedAt: now }).where(eq(faqs.id, faq.id));
      }
    } else if (checked) {
      await tx.update(faqs).set({ lastCheckedAt: now }).where(eq(faqs.id, faq.id));
    }
    const [row] = await tx
      .insert(pipelineResults)
      .values({
        pipeline: 'faq_audit',
        targetModel: 'FAQ',
        targetId: faq.id,
        targetTitle: faq.question,
        batchId: faq.batchId,
        score: r.score,
        confidence: r.confidence,
        verdict: r.verdict,
        flagged: r.flagged,
        sources: r.sources,
        metadata: {
          runId,
          reason: r.reason,
          evidence: r.evidence,
          knowledgeSearch: r.knowledgeSearch,
          matchedInsights: r.matchedInsights,
          ...(r.error ? { error: r.error } : {}),
        },
        checkedAt: now,
      })
      .returning({ id: pipelineResults.id });
    return { checked, resultId: row?.id ?? null };
  });
}

/**
 * The FAQ audit (scheduled every FAQ_AUDIT_INTERVAL_HOURS, or by POST /admin/audit/faqs). For each FAQ
 * of the batch: knowledge search top 5 with the question (a failure gives null and the audit goes on,
 * as with no context), meeting insights by keyword, the provider's structured judgement, the verdict
 * table (verdict.ts). A dry run computes the same results and writes nothing (no FAQ change, no
 * PipelineResult; the provider's token usage is still counted, since the calls were made).
 */
export async function runFaqAudit(ctx: Ctx, opts: AuditRunOptions = {}): Promise<AuditRunResult> {
  const runId = randomUUID();
  const dryRun = opts.dryRun ?? false;
  const batch = await selectBatch(ctx, opts);
  const resolved = await resolveAi(ctx);
  const items: AuditItemResult[] = [];
  for (const faq of batch) {
    if (opts.signal?.aborted) break;
    const r = await auditOne(ctx, faq, resolved, opts.signal);
    if (opts.signal?.aborted) break;
    const written = dryRun ? { checked: r.error === null, resultId: null } : await record(ctx, faq, r, runId);
    items.push({ ...r, ...written });
    logPipelineStep(ctx.log, {
      action: 'faq_audit',
      id: faq.id,
      conf: r.confidence,
      verdict: r.verdict,
      extra: { flagged: r.flagged, dry_run: dryRun || undefined },
    });
  }
  const result = { runId, dryRun, checked: items.filter((i) => i.checked).length, flagged: items.filter((i) => i.flagged).length, items };
  // Each FAQ's result commits on its own (no transaction spans the provider calls), so the run's row
  // follows them: one per run, with the counts and the FAQs it flagged.
  if (opts.actor && !dryRun)
    await writeAdminLog(ctx, {
      actorId: opts.actor.id,
      action: 'faq_audit.run',
      targetType: 'FAQ',
      ...(opts.faqId ? { targetId: opts.faqId } : {}),
      details: {
        runId,
        faqId: opts.faqId ?? null,
        audited: items.length,
        checked: result.checked,
        flagged: result.flagged,
        flaggedFaqIds: items.filter((i) => i.flagged).map((i) => i.faqId),
      },
      ...(opts.actor.ip ? { ip: opts.actor.ip } : {}),
    });
  ctx.log.info({ runId, dryRun, checked: result.checked, flagged: result.flagged }, '[faq_audit] run done');
  return result;
}
