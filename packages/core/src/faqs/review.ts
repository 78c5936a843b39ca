import { faqs, freshReviewLogs, freshReviewVotes } from '@cfaq/db/schema/index';
import { and, asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, unprocessable } from '../errors/index.js';
import { inLiveProgram } from '../programs/live.js';
import { resolveProgramId } from '../programs/resolve.js';
import { DAY_MS } from '../runtime/clock.js';
import { type Actor, type DbOrTx, isStaff } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { requireAnswer } from './require-answer.js';
import { visibleFaq } from './service.js';
import type { FaqView, ReviewQueueItem, ReviewStatus, ReviewVerdict, Tally, VoteResult } from './shape.js';
import { faqColumns, toFaqView } from './view.js';
import { faqVisibleTo } from './visibility.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'config' | 'log'>;

interface Transition {
  faqId: string;
  cycle: number;
  action: 'flagged' | 'verified' | 'update_requested' | 'escalated';
  fromStatus: ReviewStatus | null;
  toStatus: ReviewStatus;
  actorId?: string | null;
  reason?: string | null;
  details?: Record<string, unknown>;
}

/** One fresh_review_logs row per state move. */
async function logTransitions(db: DbOrTx, rows: Transition[], at: Date) {
  if (rows.length === 0) return;
  await db.insert(freshReviewLogs).values(
    rows.map((r) => ({
      faqId: r.faqId,
      cycle: r.cycle,
      action: r.action,
      fromStatus: r.fromStatus,
      toStatus: r.toStatus,
      actorId: r.actorId ?? null,
      reason: r.reason ?? null,
      details: r.details ?? null,
      createdAt: at,
    })),
  );
}

/**
 * Manual flag (the spec's "any -> pending_review"): any signed-in user who can read the FAQ, with a
 * reason, from every state. The FAQ becomes pending_review with flagType manual and the reason
 * (staff-only text). From approved, verified, update_requested or draft (staff only see drafts) a
 * new voting round starts: flaggedAt = now, reviewCycle + 1, escalatedAt null. A FAQ already pending
 * review keeps its round, its votes and its flaggedAt (so re-flagging can neither wipe votes nor
 * postpone the escalation); the new reason replaces the old one and the flag is logged.
 */
export async function flagFaq(ctx: Ctx, actor: Actor, id: string, reason: string): Promise<FaqView> {
  return ctx.db.transaction(async (tx) => {
    const current = await visibleFaq(tx, actor, id, { forUpdate: true });
    // pending_review is public: a draft goes up for review as it would be published.
    if (current.reviewStatus === 'draft') requireAnswer(current.answer, 'give it one before putting it up for review');
    const again = current.reviewStatus === 'pending_review';
    const now = ctx.clock.now();
    const [row] = await tx
      .update(faqs)
      .set({
        reviewStatus: 'pending_review',
        flagType: 'manual',
        flagReason: reason,
        flaggedAt: again ? (current.flaggedAt ?? now) : now,
        reviewCycle: again ? current.reviewCycle : sql`${faqs.reviewCycle} + 1`,
        // A FAQ pending review is not escalated: a new round (from update_requested too) starts without
        // the last round's escalatedAt, which readers would see and the staff queue would order by.
        escalatedAt: null,
        updatedAt: now,
      })
      .where(and(eq(faqs.id, id), eq(faqs.reviewStatus, current.reviewStatus)))
      .returning(faqColumns);
    if (!row) throw unprocessable(Code.FAQ_STATE_CHANGED, 'The FAQ changed meanwhile; try again');
    await logTransitions(
      tx,
      [
        {
          faqId: id,
          cycle: row.reviewCycle,
          action: 'flagged',
          fromStatus: current.reviewStatus,
          toStatus: 'pending_review',
          actorId: actor.id,
          reason,
          details: { flagType: 'manual' },
        },
      ],
      now,
    );
    return toFaqView(row, actor);
  });
}

async function tallyOf(db: DbOrTx, faqId: string, cycle: number): Promise<Tally> {
  const rows = await db
    .select({ verdict: freshReviewVotes.verdict, n: count() })
    .from(freshReviewVotes)
    .where(and(eq(freshReviewVotes.faqId, faqId), eq(freshReviewVotes.cycle, cycle)))
    .groupBy(freshReviewVotes.verdict);
  return {
    stillAccurate: rows.find((r) => r.verdict === 'still_accurate')?.n ?? 0,
    needsUpdate: rows.find((r) => r.verdict === 'needs_update')?.n ?? 0,
  };
}

/**
 * A freshness vote (any signed-in user, only while the FAQ is pending_review). Upsert on
 * faq + cycle + voter; then the tally of the current cycle decides: FAQ_VERIFY_THRESHOLD
 * still_accurate -> verified (lastVerifiedDate = now, flaggedAt = null); as many needs_update ->
 * update_requested (escalatedAt = now). The FAQ row is locked for the vote, so votes serialise.
 */
export async function voteReview(
  ctx: Ctx,
  actor: Actor,
  id: string,
  input: { verdict: ReviewVerdict; suggestion?: string | undefined },
): Promise<VoteResult> {
  return ctx.db.transaction(async (tx) => {
    const faq = await visibleFaq(tx, actor, id, { forUpdate: true });
    if (faq.reviewStatus !== 'pending_review')
      throw unprocessable(Code.FAQ_NOT_UNDER_REVIEW, 'Votes are only taken while the FAQ is pending review');
    const now = ctx.clock.now();
    const cycle = faq.reviewCycle;
    await tx
      .insert(freshReviewVotes)
      .values({
        faqId: id,
        cycle,
        voterId: actor.id,
        verdict: input.verdict,
        suggestion: input.suggestion ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [freshReviewVotes.faqId, freshReviewVotes.cycle, freshReviewVotes.voterId],
        set: { verdict: input.verdict, suggestion: input.suggestion ?? null, updatedAt: now },
      });
    const tally = await tallyOf(tx, id, cycle);
    const threshold = ctx.config.FAQ_VERIFY_THRESHOLD;
    let reviewStatus: ReviewStatus = 'pending_review';
    const pending = and(eq(faqs.id, id), eq(faqs.reviewStatus, 'pending_review'), eq(faqs.reviewCycle, cycle));
    if (tally.stillAccurate >= threshold) {
      // The flag is resolved, as a moderator's verify resolves it: a verified FAQ no longer lists as flagged.
      await tx
        .update(faqs)
        .set({ reviewStatus: 'verified', lastVerifiedDate: now, flaggedAt: null, flagType: null, flagReason: null, updatedAt: now })
        .where(pending);
      reviewStatus = 'verified';
    } else if (tally.needsUpdate >= threshold) {
      await tx.update(faqs).set({ reviewStatus: 'update_requested', escalatedAt: now, updatedAt: now }).where(pending);
      reviewStatus = 'update_requested';
    }
    if (reviewStatus !== 'pending_review') {
      await logTransitions(
        tx,
        [
          {
            faqId: id,
            cycle,
            action: reviewStatus as 'verified' | 'update_requested',
            fromStatus: 'pending_review',
            toStatus: reviewStatus,
            actorId: actor.id,
            details: { ...tally, threshold },
          },
        ],
        now,
      );
      logPipelineStep(ctx.log, { action: 'freshness_vote', id, conf: null, verdict: reviewStatus, extra: { cycle } });
    }
    return { faqId: id, cycle, reviewStatus, tally, myVote: input.verdict };
  });
}

export interface FreshnessRunResult {
  flagged: string[];
  escalated: string[];
}

type Moved = { id: string; review_cycle: number; from_status: ReviewStatus } & Record<string, unknown>;

/**
 * A scheduled state move: one conditional UPDATE (rows locked with skip locked, so two workers never
 * move the same FAQ), each moved FAQ's transition written to FreshReviewLog and to the pipeline log.
 */
async function moveDue(
  ctx: Ctx,
  move: { statement: SQL; action: Transition['action']; toStatus: ReviewStatus; reason: string; verb: string },
): Promise<string[]> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const res = await tx.execute<Moved>(move.statement);
    await logTransitions(
      tx,
      res.rows.map((r) => ({
        faqId: r.id,
        cycle: r.review_cycle,
        action: move.action,
        fromStatus: r.from_status,
        toStatus: move.toStatus,
        reason: move.reason,
      })),
      now,
    );
    for (const r of res.rows) {
      logPipelineStep(ctx.log, {
        action: `freshness_${move.verb}`,
        id: r.id,
        conf: null,
        verdict: move.toStatus,
        extra: { cycle: r.review_cycle },
      });
    }
    return res.rows.map((r) => r.id);
  });
}

/**
 * The freshness check: approved or verified non-evergreen FAQs whose lastVerifiedDate is more than
 * reviewIntervalDays ago -> pending_review (flaggedAt = now, reviewCycle + 1, flagType auto, escalatedAt null:
 * a new round, never dated by an earlier one's escalation).
 */
export function flagDueFaqs(ctx: Ctx): Promise<string[]> {
  const now = ctx.clock.now();
  return moveDue(ctx, {
    statement: sql`
      with due as (
        select id, review_status from faqs
        where freshness_tier <> 'evergreen' and review_interval_days is not null
          and review_status in ('approved', 'verified')
          and last_verified_date + review_interval_days * interval '1 day' < ${now}
          and ${inLiveProgram(sql`faqs.batch_id`)}
        for update skip locked
      )
      update faqs f set review_status = 'pending_review', flagged_at = ${now}, review_cycle = f.review_cycle + 1,
        flag_type = 'auto', flag_reason = '[Freshness] review interval of ' || f.review_interval_days || ' days exceeded',
        escalated_at = null, updated_at = ${now}
      from due where f.id = due.id
      returning f.id, f.review_cycle, due.review_status as from_status`,
    action: 'flagged',
    toStatus: 'pending_review',
    reason: 'freshness interval exceeded',
    verb: 'flag',
  });
}

/** Auto-escalation: pending_review for FAQ_ESCALATION_DAYS without resolution -> update_requested (escalatedAt = now). */
export function escalateOverdueReviews(ctx: Ctx): Promise<string[]> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - ctx.config.FAQ_ESCALATION_DAYS * DAY_MS);
  return moveDue(ctx, {
    statement: sql`
      with due as (
        select id, review_status from faqs
        where review_status = 'pending_review' and coalesce(flagged_at, last_checked_at, updated_at) <= ${cutoff}
          and ${inLiveProgram(sql`faqs.batch_id`)}
        for update skip locked
      )
      update faqs f set review_status = 'update_requested', escalated_at = ${now}, updated_at = ${now}
      from due where f.id = due.id
      returning f.id, f.review_cycle, due.review_status as from_status`,
    action: 'escalated',
    toStatus: 'update_requested',
    reason: `no resolution within ${ctx.config.FAQ_ESCALATION_DAYS} days`,
    verb: 'escalate',
  });
}

/** The scheduled "FAQ freshness review": flag what is due, then escalate what waited too long. */
export async function runFreshnessCheck(ctx: Ctx): Promise<FreshnessRunResult> {
  const flagged = await flagDueFaqs(ctx);
  const escalated = await escalateOverdueReviews(ctx);
  ctx.log.info({ flagged: flagged.length, escalated: escalated.length }, '[freshness] run done');
  return { flagged, escalated };
}

/** Public view of the FAQs under review in a program (pending_review, update_requested) with the current cycle's tally. */
export async function reviewQueue(
  ctx: Pick<CoreContext, 'db'>,
  actor: Actor | null,
  q: PageQuery & { batchId?: string | undefined },
): Promise<Page<ReviewQueueItem>> {
  const w = pageWindow(q);
  const batchId = await resolveProgramId(ctx, q.batchId, { allowArchived: isStaff(actor) });
  const where = and(eq(faqs.batchId, batchId), faqVisibleTo(actor), inArray(faqs.reviewStatus, ['pending_review', 'update_requested']));
  const voteCount = (verdict: ReviewVerdict) =>
    sql<number>`(select count(*)::int from ${freshReviewVotes} v where v.faq_id = faqs.id and v.cycle = faqs.review_cycle and v.verdict = ${verdict})`;
  const myVote = actor
    ? sql<ReviewVerdict | null>`(select v.verdict from ${freshReviewVotes} v where v.faq_id = faqs.id and v.cycle = faqs.review_cycle and v.voter_id = ${actor.id})`
    : sql<null>`null`;
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ ...faqColumns, stillAccurate: voteCount('still_accurate'), needsUpdate: voteCount('needs_update'), myVote })
      .from(faqs)
      .where(where)
      .orderBy(sql`${faqs.flaggedAt} asc nulls last`, asc(faqs.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(faqs).where(where),
  ]);
  return toPage(
    rows.map(({ stillAccurate, needsUpdate, myVote: mine, ...faq }) => ({
      ...toFaqView(faq, actor),
      tally: { stillAccurate, needsUpdate },
      myVote: mine ?? null,
    })),
    total?.n ?? 0,
    w,
  );
}
