import { confInsights } from '@cfaq/db/schema/index';
import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, conflict, notFound, unprocessable } from '../errors/index.js';
import { insertFaq } from '../faqs/service.js';
import type { FaqView, FreshnessTier } from '../faqs/shape.js';
import { toFaqView } from '../faqs/view.js';
import { resolveProgramId } from '../programs/resolve.js';
import type { Actor } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';

export type InsightStatus = 'pending_review' | 'approved' | 'rejected';

export interface InsightView {
  id: string;
  meetingId: string;
  batchId: string | null;
  question: string;
  answer: string;
  context: string | null;
  speaker: string | null;
  status: InsightStatus;
  convertedFaqId: string | null;
  reviewedBy: string | null;
  reviewedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

type InsightRow = typeof confInsights.$inferSelect;

export const toInsightView = (r: InsightRow): InsightView => ({
  id: r.id,
  meetingId: r.meetingId,
  batchId: r.batchId,
  question: r.question,
  answer: r.answer,
  context: r.context,
  speaker: r.speaker,
  status: r.status,
  convertedFaqId: r.convertedFaqId,
  reviewedBy: r.reviewedBy,
  reviewedAt: r.reviewedAt?.toISOString() ?? null,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
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
    q.batchId ? eq(confInsights.batchId, q.batchId) : undefined,
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

export interface UpdateInsightInput {
  status?: InsightStatus | undefined;
  question?: string | undefined;
  answer?: string | undefined;
}

/**
 * PUT /conf/insights/:id: approve (status approved), reject, send back to review, and/or edit the
 * question and answer. A converted insight can no longer change (422).
 */
export async function updateInsight(
  ctx: Pick<CoreContext, 'db' | 'clock'>,
  actor: Actor,
  id: string,
  input: UpdateInsightInput,
): Promise<InsightView> {
  const [current] = await ctx.db.select().from(confInsights).where(eq(confInsights.id, id));
  if (!current) throw notFound('Insight', Code.INSIGHT_NOT_FOUND);
  if (current.convertedFaqId) throw unprocessable(Code.INSIGHT_CONVERTED, 'The insight was converted to a FAQ; edit the FAQ instead');
  const now = ctx.clock.now();
  const reviewed = input.status && input.status !== current.status && input.status !== 'pending_review';
  const [row] = await ctx.db
    .update(confInsights)
    .set({
      ...(input.status ? { status: input.status } : {}),
      ...(input.question !== undefined ? { question: input.question } : {}),
      ...(input.answer !== undefined ? { answer: input.answer } : {}),
      ...(reviewed ? { reviewedBy: actor.id, reviewedAt: now } : {}),
      ...(input.status === 'pending_review' ? { reviewedBy: null, reviewedAt: null } : {}),
      updatedAt: now,
    })
    .where(and(eq(confInsights.id, id), sql`${confInsights.convertedFaqId} is null`))
    .returning();
  if (!row) throw unprocessable(Code.INSIGHT_CONVERTED, 'The insight was converted to a FAQ; edit the FAQ instead');
  return toInsightView(row);
}

export interface ConvertInsightInput {
  question?: string | undefined;
  answer?: string | undefined;
  category?: string | undefined;
  freshnessTier?: FreshnessTier | undefined;
}

/**
 * POST /conf/insights/:id/convert-to-faq: an approved insight becomes an approved FAQ (source
 * conf_insight, sourceId = the insight) in its program, linked by convertedFaqId. Not approved: 422;
 * converted already: 409.
 */
export async function convertInsightToFaq(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'config' | 'jobs'>,
  actor: Actor,
  id: string,
  input: ConvertInsightInput,
): Promise<{ faq: FaqView; insight: InsightView }> {
  return ctx.db.transaction(async (tx) => {
    const [insight] = await tx.select().from(confInsights).where(eq(confInsights.id, id)).for('update');
    if (!insight) throw notFound('Insight', Code.INSIGHT_NOT_FOUND);
    if (insight.convertedFaqId) throw conflict(Code.INSIGHT_ALREADY_CONVERTED, 'The insight was already converted to a FAQ');
    if (insight.status !== 'approved') throw unprocessable(Code.INSIGHT_NOT_APPROVED, 'Only an approved insight can be converted');
    const batchId = insight.batchId ?? (await resolveProgramId({ db: tx }, null));
    const faq = await insertFaq(
      ctx,
      tx,
      {
        batchId,
        question: input.question ?? insight.question,
        answer: input.answer ?? insight.answer,
        category: input.category ?? null,
        ...(input.freshnessTier ? { freshnessTier: input.freshnessTier } : {}),
        reviewStatus: 'approved',
        source: 'conf_insight',
        sourceId: insight.id,
      },
      actor.id,
    );
    const [row] = await tx
      .update(confInsights)
      .set({ convertedFaqId: faq.id, updatedAt: ctx.clock.now() })
      .where(eq(confInsights.id, id))
      .returning();
    return { faq: toFaqView(faq, actor), insight: toInsightView(row as InsightRow) };
  });
}
