import { faqs, freshReviewLogs, freshReviewVotes, pipelineResults, users } from '@cfaq/db/schema/index';
import { and, asc, count, desc, eq, inArray, not, or, type SQL, sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, notFound, unprocessable } from '../errors/index.js';
import type { AuditVerdict } from '../faq-audit/shape.js';
import { inLiveProgram } from '../programs/live.js';
import type { Actor } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { hasOpenReport, oldestOpenReportAt, openReportCount, openReportsOf } from './reports.js';
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
      // A faq_audit row holds one of the audit's verdicts (the pipeline_verdict enum also has auto-answer's).
      verdict: r.verdict as AuditVerdict,
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
  reviewStatus?: ReviewStatus | undefined;
  flagType?: 'manual' | 'auto' | undefined;
  /** true: only FAQs with an open report; false: only FAQs without one. */
  reported?: boolean | undefined;
}

const UNDER_REVIEW: ReviewStatus[] = ['pending_review', 'update_requested'];

/**
 * Since when an item has waited: under review, since its escalation or flag (else its last update);
 * with open reports, since the oldest of them if that is earlier.
 */
const waitingSince = sql`coalesce(least(case when ${faqs.reviewStatus} in ('pending_review', 'update_requested')
  then coalesce(${faqs.escalatedAt}, ${faqs.flaggedAt}, ${faqs.updatedAt}) end, ${oldestOpenReportAt}), ${faqs.updatedAt})`;

/**
 * The staff lists of FAQs needing attention. `statuses` are the review statuses listed; with
 * `withReported`, FAQs that have an open report are listed too, whatever their review status.
 */
async function staffReviewList(
  ctx: Pick<CoreContext, 'db'>,
  statuses: ReviewStatus[],
  q: StaffReviewQuery,
  opts: { withReported: boolean },
): Promise<Page<StaffReviewItem>> {
  const w = pageWindow(q);
  // A status outside the listed ones is in the queue only through an open report.
  const listed = q.reviewStatus
    ? statuses.includes(q.reviewStatus)
      ? eq(faqs.reviewStatus, q.reviewStatus)
      : and(eq(faqs.reviewStatus, q.reviewStatus), opts.withReported ? hasOpenReport : sql`false`)
    : opts.withReported
      ? or(inArray(faqs.reviewStatus, statuses), hasOpenReport)
      : inArray(faqs.reviewStatus, statuses);
  const conds: (SQL | undefined)[] = [
    listed,
    q.reported === undefined ? undefined : q.reported ? hasOpenReport : not(hasOpenReport),
    q.batchId ? eq(faqs.batchId, q.batchId) : undefined,
    q.flagType ? eq(faqs.flagType, q.flagType) : undefined,
    sql`exists (select 1 from batches b where b.id = faqs.batch_id and b.deleted_at is null)`,
  ];
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({
        ...faqColumns,
        stillAccurate: voteCount('still_accurate'),
        needsUpdate: voteCount('needs_update'),
        openReportCount,
      })
      .from(faqs)
      .where(where)
      .orderBy(sql`${waitingSince} asc`, asc(faqs.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(faqs).where(where),
  ]);
  const ids = rows.map((r) => r.id);
  const [suggestions, audits, reports] = await Promise.all([suggestionsOf(ctx, rows), latestAudits(ctx, ids), openReportsOf(ctx, ids)]);
  return toPage(
    rows.map(({ stillAccurate, needsUpdate, openReportCount: reportCount, ...faq }) => ({
      ...toFaqView(faq, ADMIN_READER),
      tally: { stillAccurate, needsUpdate },
      suggestions: suggestions.get(faq.id) ?? [],
      latestAudit: audits.get(faq.id) ?? null,
      openReportCount: reportCount,
      openReports: reports.get(faq.id) ?? [],
    })),
    total?.n ?? 0,
    w,
  );
}

/**
 * `GET /admin/escalated`: update_requested FAQs, longest waiting first, with the cycle's tally, the
 * voters' suggestions, the latest audit and the open reports.
 */
export function listEscalatedFaqs(ctx: Pick<CoreContext, 'db'>, q: Omit<StaffReviewQuery, 'reviewStatus'>): Promise<Page<StaffReviewItem>> {
  return staffReviewList(ctx, ['update_requested'], q, { withReported: false });
}

/**
 * `GET /admin/faqs/review`: the FAQ review queue for staff, longest waiting first: pending_review and
 * update_requested FAQs, and FAQs of any review status with an open user report (an approved FAQ
 * someone reported is listed until staff close its reports). Each item: flag type and reason, tally,
 * suggestions, latest audit, open reports.
 */
export function staffReviewQueue(ctx: Pick<CoreContext, 'db'>, q: StaffReviewQuery): Promise<Page<StaffReviewItem>> {
  return staffReviewList(ctx, UNDER_REVIEW, q, { withReported: true });
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
      // A deleted program's FAQ is 404 here as on every read: no log or review move written into it.
      .where(and(eq(faqs.id, id), eq(faqs.reviewStatus, 'update_requested'), inLiveProgram(faqs.batchId)))
      .returning(faqColumns);
    if (!row) {
      const [exists] = await tx
        .select({ id: faqs.id })
        .from(faqs)
        .where(and(eq(faqs.id, id), inLiveProgram(faqs.batchId)))
        .limit(1);
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
