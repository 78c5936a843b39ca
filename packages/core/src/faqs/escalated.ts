import { faqs, freshReviewLogs, freshReviewVotes, pipelineResults, users } from '@cfaq/db/schema/index';
import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, notFound, unprocessable } from '../errors/index.js';
import type { Actor } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import type { FaqView, LatestAudit, ReviewStatus, ReviewSuggestion, StaffReviewItem } from './shape.js';
import { faqColumns, toFaqView } from './view.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'log'>;

/** These lists are served on admin-only routes: the reader is staff (flag reasons shown). */
export const ADMIN_READER: Actor = { id: '00000000-0000-0000-0000-000000000000', role: 'admin' };

const voteCount = (verdict: 'still_accurate' | 'needs_update') =>
  sql<number>`(select count(*)::int from ${freshReviewVotes} v where v.faq_id = faqs.id and v.cycle = faqs.review_cycle and v.verdict = ${verdict})`;

/** The suggestions voters wrote in each FAQ's current review cycle, oldest first. */
async function suggestionsOf(ctx: Pick<CoreContext, 'db'>, rows: { id: string; reviewCycle: number }[]) {
  const out = new Map<string, ReviewSuggestion[]>();
  if (rows.length === 0) return out;
  const found = await ctx.db
    .select({
      faqId: freshReviewVotes.faqId,
      cycle: freshReviewVotes.cycle,
      voterId: freshReviewVotes.voterId,
      voterName: users.name,
      verdict: freshReviewVotes.verdict,
      suggestion: freshReviewVotes.suggestion,
      createdAt: freshReviewVotes.createdAt,
    })
    .from(freshReviewVotes)
    .leftJoin(users, eq(users.id, freshReviewVotes.voterId))
    .where(
      and(
        inArray(
          freshReviewVotes.faqId,
          rows.map((r) => r.id),
        ),
        sql`${freshReviewVotes.suggestion} is not null and btrim(${freshReviewVotes.suggestion}) <> ''`,
      ),
    )
    .orderBy(asc(freshReviewVotes.createdAt));
  const cycleOf = new Map(rows.map((r) => [r.id, r.reviewCycle]));
  for (const s of found) {
    if (cycleOf.get(s.faqId) !== s.cycle) continue;
    const list = out.get(s.faqId) ?? [];
    list.push({
      voterId: s.voterId,
      voterName: s.voterName ?? null,
      verdict: s.verdict,
      suggestion: s.suggestion as string,
      createdAt: s.createdAt,
    });
    out.set(s.faqId, list);
  }
  return out;
}

/** The newest faq_audit PipelineResult of each FAQ. */
export async function latestAudits(ctx: Pick<CoreContext, 'db'>, faqIds: string[]): Promise<Map<string, LatestAudit>> {
  const out = new Map<string, LatestAudit>();
  if (faqIds.length === 0) return out;
  const rows = await ctx.db
    .selectDistinctOn([pipelineResults.targetId])
    .from(pipelineResults)
    .where(and(eq(pipelineResults.pipeline, 'faq_audit'), inArray(pipelineResults.targetId, faqIds)))
    .orderBy(pipelineResults.targetId, desc(pipelineResults.checkedAt), desc(pipelineResults.id));
  for (const r of rows) {
    const reason = r.metadata?.reason;
    out.set(r.targetId, {
      id: r.id,
      verdict: r.verdict,
      score: r.score,
      confidence: r.confidence,
      flagged: r.flagged,
      reason: typeof reason === 'string' ? reason : null,
      sources: r.sources,
      checkedAt: r.checkedAt,
    });
  }
  return out;
}

export interface StaffReviewQuery extends PageQuery {
  batchId?: string | undefined;
  reviewStatus?: 'pending_review' | 'update_requested' | undefined;
  flagType?: 'manual' | 'auto' | undefined;
}

async function staffReviewList(
  ctx: Pick<CoreContext, 'db'>,
  statuses: ReviewStatus[],
  q: StaffReviewQuery,
): Promise<Page<StaffReviewItem>> {
  const w = pageWindow(q);
  const conds: (SQL | undefined)[] = [
    inArray(faqs.reviewStatus, q.reviewStatus ? [q.reviewStatus] : statuses),
    q.batchId ? eq(faqs.batchId, q.batchId) : undefined,
    q.flagType ? eq(faqs.flagType, q.flagType) : undefined,
    sql`exists (select 1 from batches b where b.id = faqs.batch_id and b.deleted_at is null)`,
  ];
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ ...faqColumns, stillAccurate: voteCount('still_accurate'), needsUpdate: voteCount('needs_update') })
      .from(faqs)
      .where(where)
      .orderBy(sql`coalesce(${faqs.escalatedAt}, ${faqs.flaggedAt}, ${faqs.updatedAt}) asc`, asc(faqs.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(faqs).where(where),
  ]);
  const [suggestions, audits] = await Promise.all([
    suggestionsOf(ctx, rows),
    latestAudits(
      ctx,
      rows.map((r) => r.id),
    ),
  ]);
  return toPage(
    rows.map(({ stillAccurate, needsUpdate, ...faq }) => ({
      ...toFaqView(faq, ADMIN_READER),
      tally: { stillAccurate, needsUpdate },
      suggestions: suggestions.get(faq.id) ?? [],
      latestAudit: audits.get(faq.id) ?? null,
    })),
    total?.n ?? 0,
    w,
  );
}

/** `GET /admin/escalated`: update_requested FAQs, longest waiting first, with the cycle's tally, the voters' suggestions and the latest audit. */
export function listEscalatedFaqs(ctx: Pick<CoreContext, 'db'>, q: Omit<StaffReviewQuery, 'reviewStatus'>): Promise<Page<StaffReviewItem>> {
  return staffReviewList(ctx, ['update_requested'], q);
}

/** `GET /admin/faqs/review`: the FAQ review queue for staff (pending_review and update_requested), flag type and reason, tally, latest audit. */
export function staffReviewQueue(ctx: Pick<CoreContext, 'db'>, q: StaffReviewQuery): Promise<Page<StaffReviewItem>> {
  return staffReviewList(ctx, ['pending_review', 'update_requested'], q);
}

/**
 * Closes an escalated (update_requested) FAQ as verified: lastVerifiedDate = now, the flag cleared
 * (flagType, flagReason, flaggedAt, escalatedAt null). `dismiss` requires a reason, which goes to the
 * admin log and the FreshReviewLog. One conditional UPDATE: of two staff acting at once one wins,
 * the other gets 422 FAQ_NOT_ESCALATED.
 */
async function closeEscalation(
  ctx: Ctx,
  actor: Actor,
  id: string,
  action: 'verified' | 'dismissed',
  reason: string | null,
): Promise<FaqView> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const [row] = await tx
      .update(faqs)
      .set({
        reviewStatus: 'verified',
        lastVerifiedDate: now,
        flagType: null,
        flagReason: null,
        flaggedAt: null,
        escalatedAt: null,
        updatedAt: now,
        updatedBy: actor.id,
      })
      .where(and(eq(faqs.id, id), eq(faqs.reviewStatus, 'update_requested')))
      .returning(faqColumns);
    if (!row) {
      const [exists] = await tx.select({ id: faqs.id }).from(faqs).where(eq(faqs.id, id)).limit(1);
      if (!exists) throw notFound('FAQ', Code.FAQ_NOT_FOUND);
      throw unprocessable(Code.FAQ_NOT_ESCALATED, 'Only an escalated (update_requested) FAQ can be verified or dismissed');
    }
    await tx.insert(freshReviewLogs).values({
      faqId: id,
      cycle: row.reviewCycle,
      action,
      fromStatus: 'update_requested',
      toStatus: 'verified',
      actorId: actor.id,
      reason,
      details: { role: actor.role },
      createdAt: now,
    });
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: action === 'verified' ? 'faq.escalation_verified' : 'faq.escalation_dismissed',
      targetType: 'FAQ',
      targetId: id,
      reason,
      details: { cycle: row.reviewCycle, role: actor.role },
      batchId: row.batchId,
    });
    logPipelineStep(ctx.log, {
      action: action === 'verified' ? 'freshness_verify' : 'freshness_dismiss',
      id,
      conf: null,
      verdict: 'verified',
      extra: { cycle: row.reviewCycle },
    });
    return toFaqView(row, actor);
  });
}

export const verifyEscalatedFaq = (ctx: Ctx, actor: Actor, id: string) => closeEscalation(ctx, actor, id, 'verified', null);
export const dismissEscalatedFaq = (ctx: Ctx, actor: Actor, id: string, reason: string) =>
  closeEscalation(ctx, actor, id, 'dismissed', reason);
