import { confInsights } from '@cfaq/db/schema/index';
import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, conflict, notFound, unprocessable } from '../errors/index.js';
import type { FreshnessTier } from '../faqs/shape.js';
import { toFaqView } from '../faqs/view.js';
import { proposalColumns, proposeFaqUpdates } from '../knowledge/faq-match.js';
import { writeFaqFromKnowledge } from '../knowledge/faq-write.js';
import { inLiveProgram } from '../programs/live.js';
import { lockProgramForWrite } from '../programs/lock.js';
import type { Actor } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { clockTime } from './knowledge-store.js';
import type { ConvertInsightResult, InsightStatus, InsightView } from './shape.js';

type InsightRow = typeof confInsights.$inferSelect;

export const toInsightView = (r: InsightRow): InsightView => ({
  id: r.id,
  meetingId: r.meetingId,
  batchId: r.batchId,
  question: r.question,
  answer: r.answer,
  context:
    r.context !== null && r.cueStartMs !== null && r.cueEndMs !== null
      ? `[${clockTime(r.cueStartMs / 1000)}-${clockTime(r.cueEndMs / 1000)}] ${r.context}`
      : r.context,
  speaker: r.speaker,
  cueStartMs: r.cueStartMs,
  cueEndMs: r.cueEndMs,
  status: r.status,
  convertedFaqId: r.convertedFaqId,
  proposedFaqId: r.proposedFaqId,
  proposedFaqScore: r.proposedFaqScore,
  reviewedBy: r.reviewedBy,
  reviewedAt: r.reviewedAt ?? null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export interface ListInsightsQuery extends PageQuery {
  status?: InsightStatus | undefined;
  meetingId?: string | undefined;
  batchId?: string | undefined;
}

export async function listInsights(ctx: Pick<CoreContext, 'db'>, q: ListInsightsQuery): Promise<Page<InsightView>> {
  const w = pageWindow(q);
  const where = and(
    q.status ? eq(confInsights.status, q.status) : undefined,
    q.meetingId ? eq(confInsights.meetingId, q.meetingId) : undefined,
    q.batchId ? eq(confInsights.batchId, q.batchId) : inLiveProgram(sql`conf_insights.batch_id`, { nullable: true }),
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(confInsights)
      .where(where)
      .orderBy(desc(confInsights.createdAt), desc(confInsights.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(confInsights).where(where),
  ]);
  return toPage(rows.map(toInsightView), total?.n ?? 0, w);
}

/** The insight by id, unless its program is deleted: such an insight left the list and takes no edit (404). */
const byIdLive = (id: string) => and(eq(confInsights.id, id), inLiveProgram(sql`conf_insights.batch_id`, { nullable: true }));

export interface UpdateInsightInput {
  status?: InsightStatus | undefined;
  question?: string | undefined;
  answer?: string | undefined;
}

/**
 * PUT /conf/insights/:id: approve (status approved), reject, send back to review, and/or edit the
 * question and answer (an edit recomputes the "update FAQ X" proposal). A converted insight can no
 * longer change (422); one of a deleted program is 404.
 */
export async function updateInsight(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'pool' | 'embedder'>,
  actor: Actor,
  id: string,
  input: UpdateInsightInput,
): Promise<InsightView> {
  // The proposal embeds a question, so it is computed before the transaction (none is held across the
  // embedder), for the question read then. The row is then locked: an edit that committed meanwhile may
  // have changed the question, and a proposal computed for another question than the row will have is
  // not written (the stored one, written with the current question, stays). When this edit sets a
  // question it has no proposal for, it reads again and computes for it (a second pass always does).
  for (let attempt = 0; ; attempt += 1) {
    const [current] = await ctx.db.select().from(confInsights).where(byIdLive(id));
    if (!current) throw notFound('Insight', Code.INSIGHT_NOT_FOUND);
    if (current.convertedFaqId) throw unprocessable(Code.INSIGHT_CONVERTED, 'The insight was converted to a FAQ; edit the FAQ instead');
    const edited =
      (input.question !== undefined && input.question !== current.question) ||
      (input.answer !== undefined && input.answer !== current.answer);
    const proposedFor = edited || (attempt > 0 && input.question !== undefined) ? (input.question ?? current.question) : null;
    const [computed] = proposedFor !== null ? await proposeFaqUpdates(ctx, current.batchId, [proposedFor]) : [undefined];
    const row = await ctx.db.transaction(async (tx) => {
      const [locked] = await tx.select().from(confInsights).where(byIdLive(id)).for('update');
      if (!locked) throw notFound('Insight', Code.INSIGHT_NOT_FOUND);
      if (locked.convertedFaqId) throw unprocessable(Code.INSIGHT_CONVERTED, 'The insight was converted to a FAQ; edit the FAQ instead');
      const question = input.question ?? locked.question;
      const proposal = proposedFor === question ? computed : undefined;
      if (question !== locked.question && proposal === undefined) return null; // a new question with no proposal: again
      const now = ctx.clock.now();
      const reviewed = input.status && input.status !== locked.status && input.status !== 'pending_review';
      const [updated] = await tx
        .update(confInsights)
        .set({
          ...(input.status ? { status: input.status } : {}),
          ...(input.question !== undefined ? { question: input.question } : {}),
          ...(input.answer !== undefined ? { answer: input.answer } : {}),
          ...(reviewed ? { reviewedBy: actor.id, reviewedAt: now } : {}),
          ...(input.status === 'pending_review' ? { reviewedBy: null, reviewedAt: null } : {}),
          ...(proposal !== undefined ? proposalColumns(proposal) : {}),
          updatedAt: now,
        })
        .where(eq(confInsights.id, id))
        .returning();
      if (!updated) throw new Error('the locked insight row was not updated');
      return updated;
    });
    if (row) return toInsightView(row);
  }
}

export interface ConvertInsightInput {
  question?: string | undefined;
  answer?: string | undefined;
  category?: string | undefined;
  freshnessTier?: FreshnessTier | undefined;
  /**
   * The FAQ to update instead of creating one; null: create a new FAQ whatever the proposal; absent:
   * follow the proposal (update the FAQ it names, else create).
   */
  faqId?: string | null | undefined;
}

/**
 * POST /conf/insights/:id/convert-to-faq: an approved insight becomes FAQ content, linked by
 * convertedFaqId. When it matches an existing FAQ of its program closely (proposal recomputed now,
 * knowledge/faq-match.ts), or `faqId` names one, that FAQ is updated (answer from the insight, question
 * only when given; a revision is kept) instead of a second FAQ being created (source conf_insight,
 * sourceId = the insight). Not approved: 422; converted already: 409; `faqId` unknown: 404, another
 * program's FAQ: 422.
 */
export async function convertInsightToFaq(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'config' | 'jobs' | 'pool' | 'embedder'>,
  actor: Actor,
  id: string,
  input: ConvertInsightInput,
): Promise<ConvertInsightResult> {
  const [before] = await ctx.db.select().from(confInsights).where(eq(confInsights.id, id));
  if (!before) throw notFound('Insight', Code.INSIGHT_NOT_FOUND);
  const [proposal] = await proposeFaqUpdates(ctx, before.batchId, [input.question ?? before.question]);
  return ctx.db.transaction(async (tx) => {
    const [insight] = await tx.select().from(confInsights).where(eq(confInsights.id, id)).for('update');
    if (!insight) throw notFound('Insight', Code.INSIGHT_NOT_FOUND);
    if (insight.convertedFaqId) throw conflict(Code.INSIGHT_ALREADY_CONVERTED, 'The insight was already converted to a FAQ');
    if (insight.status !== 'approved') throw unprocessable(Code.INSIGHT_NOT_APPROVED, 'Only an approved insight can be converted');
    // Locked until commit: a program delete racing the conversion waits for it, or makes it a 404.
    const batchId = await lockProgramForWrite(tx, insight.batchId, { allowArchived: true });
    const target = input.faqId === null ? null : (input.faqId ?? proposal?.faqId ?? null);
    const written = await writeFaqFromKnowledge(ctx, tx, actor, {
      target,
      batchId,
      question: input.question,
      answer: input.answer ?? insight.answer,
      newQuestion: insight.question,
      category: input.category,
      freshnessTier: input.freshnessTier,
      source: 'conf_insight',
      sourceId: insight.id,
    });
    const [row] = await tx
      .update(confInsights)
      .set({ convertedFaqId: written.faq.id, ...proposalColumns(proposal ?? null), updatedAt: ctx.clock.now() })
      .where(eq(confInsights.id, id))
      .returning();
    return { faq: toFaqView(written.faq, actor), insight: toInsightView(row as InsightRow), action: written.action };
  });
}
