import { adminLogs, comments, communityPosts, faqs } from '@cfaq/db/schema/index';
import { and, count, desc, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, notFound, unprocessable } from '../errors/index.js';
import { inLiveProgram } from '../programs/live.js';
import { resolveProgramId } from '../programs/resolve.js';
import { HOUR_MS } from '../runtime/clock.js';
import type { Actor, DbOrTx } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { hasVisibleText, VISIBLE_TEXT_REGEX } from '../shared/text.js';
import { ADMIN_READER } from './escalated.js';
import { requireAnswer } from './require-answer.js';
import { faqApprovedDrop, insertFaq } from './service.js';
import type { CommunityPendingItem } from './shape.js';
import { faqColumns, toFaqView } from './view.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'config' | 'jobs' | 'log'>;

/**
 * The promotion cycle (every PROMOTION_INTERVAL_MINUTES, 15). The rule, in README "Promotion cycle":
 * - Nomination: an answered, live, unconverted post whose net votes (upvotes - downvotes) reach
 *   PROMOTION_MIN_SUPPORT and which has an answer (accepted comment, else latest verified comment, else
 *   approved AI answer) becomes a community-pending FAQ: a draft with source community_post,
 *   promotionStatus community_pending and promotionEligibleAt = now + PROMOTION_OBJECTION_WINDOW_HOURS.
 *   A user's suggestion with an answer (POST /faq/suggest) becomes community-pending the same way.
 * - Promotion: a community-pending FAQ is approved once its window has passed with no objection, its
 *   answer is not empty and its source post (still live and answered) keeps PROMOTION_MIN_SUPPORT net
 *   votes and an answer, and the draft is not the text of an AI answer that is no longer approved.
 *   Suggestions have no community signal, so the cycle never approves one by itself: an admin promotes it.
 * - An objection (POST /admin/faqs/:id/object) moves it to objected: the cycle no longer promotes it;
 *   only an admin's promote does.
 */
export interface PromotionRunResult {
  nominated: string[];
  promoted: string[];
}

const NOMINATE_BATCH = 50;

const netVotes = sql<number>`(${communityPosts.upvotes} - ${communityPosts.downvotes})`;

/** The answer a nominated post carries: accepted comment, else latest verified comment, else approved AI answer. */
async function answerOf(tx: DbOrTx, post: { id: string; aiAnswer: string | null; aiAnswerStatus: string | null }): Promise<string | null> {
  const [best] = await tx
    .select({ body: comments.body })
    .from(comments)
    .where(and(eq(comments.postId, post.id), isNull(comments.deletedAt), or(eq(comments.isAccepted, true), eq(comments.isVerified, true))))
    .orderBy(desc(comments.isAccepted), desc(comments.verifiedAt))
    .limit(1);
  const text = best?.body ?? (post.aiAnswerStatus === 'approved' ? post.aiAnswer : null);
  return hasVisibleText(text) ? text : null;
}

/** Step 1: supported answered posts become community-pending FAQs (each in its own short transaction, post row locked). */
export async function nominatePosts(ctx: Ctx): Promise<string[]> {
  const min = ctx.config.PROMOTION_MIN_SUPPORT;
  const candidates = await ctx.db
    .select({ id: communityPosts.id })
    .from(communityPosts)
    .where(
      and(
        eq(communityPosts.status, 'answered'),
        isNull(communityPosts.deletedAt),
        isNull(communityPosts.convertedFaqId),
        sql`${netVotes} >= ${min}`,
        sql`(${communityPosts.batchId} is null or exists (select 1 from batches b where b.id = ${communityPosts.batchId} and b.deleted_at is null))`,
        // Only posts with an answer to promote (answerOf's sources): a post resolved without one
        // would stay a candidate every cycle, and fifty of them filled the batch for good.
        sql`(exists (select 1 from comments c where c.post_id = ${communityPosts.id} and c.deleted_at is null
          and (c.is_accepted or c.is_verified) and c.body ~ ${VISIBLE_TEXT_REGEX})
          or (${communityPosts.aiAnswerStatus} = 'approved' and coalesce(${communityPosts.aiAnswer}, '') ~ ${VISIBLE_TEXT_REGEX}))`,
      ),
    )
    .orderBy(communityPosts.createdAt)
    .limit(NOMINATE_BATCH);
  const nominated: string[] = [];
  for (const { id } of candidates) {
    const faqId = await ctx.db.transaction(async (tx) => {
      const [post] = await tx
        .select({
          id: communityPosts.id,
          title: communityPosts.title,
          batchId: communityPosts.batchId,
          aiAnswer: communityPosts.aiAnswer,
          aiAnswerStatus: communityPosts.aiAnswerStatus,
        })
        .from(communityPosts)
        .where(
          and(
            eq(communityPosts.id, id),
            eq(communityPosts.status, 'answered'),
            isNull(communityPosts.deletedAt),
            isNull(communityPosts.convertedFaqId),
            sql`${netVotes} >= ${min}`,
          ),
        )
        .for('update', { skipLocked: true });
      if (!post) return null;
      const answer = await answerOf(tx, post);
      if (!answer) return null;
      const now = ctx.clock.now();
      const batchId = post.batchId ?? (await resolveProgramId(ctx, null));
      const row = await insertFaq(
        ctx,
        tx,
        {
          batchId,
          question: post.title,
          answer,
          reviewStatus: 'draft',
          source: 'community_post',
          sourceId: post.id,
          promotionStatus: 'community_pending',
          promotionEligibleAt: new Date(now.getTime() + ctx.config.PROMOTION_OBJECTION_WINDOW_HOURS * HOUR_MS),
        },
        null,
      );
      await tx.update(communityPosts).set({ convertedFaqId: row.id, updatedAt: now }).where(eq(communityPosts.id, post.id));
      return row.id;
    });
    if (faqId) {
      nominated.push(faqId);
      logPipelineStep(ctx.log, { action: 'promotion_nominate', id: faqId, conf: null, verdict: 'community_pending', extra: { post: id } });
    }
  }
  return nominated;
}

/** Step 2: community-pending FAQs past their window, unobjected, still supported -> approved (one conditional UPDATE, skip locked). */
export async function promoteDue(ctx: Ctx): Promise<string[]> {
  const now = ctx.clock.now();
  const min = ctx.config.PROMOTION_MIN_SUPPORT;
  return ctx.db.transaction(async (tx) => {
    const res = await tx.execute<{ id: string; batch_id: string; question: string }>(sql`
      with due as (
        select f.id from faqs f
        join community_posts p on p.id = f.source_id and f.source = 'community_post'
        where f.promotion_status = 'community_pending' and f.review_status = 'draft'
          and f.promotion_eligible_at <= ${now} and f.answer ~ ${VISIBLE_TEXT_REGEX}
          and p.deleted_at is null and p.upvotes - p.downvotes >= ${min} and ${inLiveProgram(sql`f.batch_id`)}
          -- The post still carries an answer (what nomination asked), and the draft is not the text of
          -- an AI answer that has since left approved (rejected, escalated, or taken down by its
          -- author or votes): that text is staff-only and must not go public through the cycle.
          and p.status = 'answered'
          and (exists (select 1 from comments c where c.post_id = p.id and c.deleted_at is null
                 and (c.is_accepted or c.is_verified) and c.body ~ ${VISIBLE_TEXT_REGEX})
               or (p.ai_answer_status = 'approved' and coalesce(p.ai_answer, '') ~ ${VISIBLE_TEXT_REGEX}))
          and not (p.ai_answer_status is distinct from 'approved' and btrim(f.answer) = btrim(coalesce(p.ai_answer, '')))
        for update of f skip locked
      )
      update faqs f set review_status = 'approved', promotion_status = 'promoted', last_verified_date = ${now}, updated_at = ${now}
      from due where f.id = due.id
      returning f.id, f.batch_id, f.question`);
    for (const r of res.rows) {
      await faqApprovedDrop(tx, { id: r.id, batchId: r.batch_id, question: r.question });
      logPipelineStep(ctx.log, { action: 'promotion_promote', id: r.id, conf: null, verdict: 'approved' });
    }
    return res.rows.map((r) => r.id);
  });
}

export async function runPromotionCycle(ctx: Ctx): Promise<PromotionRunResult> {
  const nominated = await nominatePosts(ctx);
  const promoted = await promoteDue(ctx);
  ctx.log.info({ nominated: nominated.length, promoted: promoted.length }, '[promotion] cycle done');
  return { nominated, promoted };
}

const pendingColumns = {
  ...faqColumns,
  promotionStatus: faqs.promotionStatus,
  promotionEligibleAt: faqs.promotionEligibleAt,
  objectionCount: faqs.objectionCount,
  support: sql<
    number | null
  >`(select p.upvotes - p.downvotes from community_posts p where faqs.source = 'community_post' and p.id = faqs.source_id and p.deleted_at is null)`,
};

type PendingRow = { [K in keyof typeof pendingColumns]: K extends keyof typeof faqColumns ? Parameters<typeof toFaqView>[0][K] : unknown };

async function toPendingItems(ctx: Pick<CoreContext, 'db' | 'clock' | 'config'>, rows: PendingRow[]): Promise<CommunityPendingItem[]> {
  const ids = rows.map((r) => r.id);
  const objections = ids.length
    ? await ctx.db
        .selectDistinctOn([adminLogs.targetId], {
          targetId: adminLogs.targetId,
          reason: adminLogs.reason,
          actorId: adminLogs.actorId,
          createdAt: adminLogs.createdAt,
        })
        .from(adminLogs)
        .where(and(eq(adminLogs.action, 'faq.promotion_objected'), inArray(adminLogs.targetId, ids)))
        .orderBy(adminLogs.targetId, desc(adminLogs.createdAt))
    : [];
  const byId = new Map(objections.map((o) => [o.targetId, o]));
  const now = ctx.clock.now().getTime();
  return rows.map((r) => {
    const { promotionStatus, promotionEligibleAt, objectionCount, support, ...faq } = r as PendingRow & {
      promotionStatus: CommunityPendingItem['promotionStatus'];
      promotionEligibleAt: Date | null;
      objectionCount: number;
      support: number | null;
    };
    const o = byId.get(faq.id);
    return {
      ...toFaqView(faq as Parameters<typeof toFaqView>[0], ADMIN_READER),
      promotionStatus,
      promotionEligibleAt,
      objectionCount,
      support: support ?? null,
      autoPromotable:
        promotionStatus === 'community_pending' &&
        faq.reviewStatus === 'draft' &&
        !!promotionEligibleAt &&
        promotionEligibleAt.getTime() <= now &&
        hasVisibleText(faq.answer) &&
        support !== null &&
        support >= ctx.config.PROMOTION_MIN_SUPPORT,
      lastObjection: o ? { reason: o.reason, actorId: o.actorId, createdAt: o.createdAt } : null,
    };
  });
}

export interface CommunityPendingQuery extends PageQuery {
  batchId?: string | undefined;
  /** community_pending (default), objected, or both. */
  status?: 'community_pending' | 'objected' | 'all' | undefined;
}

/** `GET /admin/faqs/community-pending`: drafts waiting for promotion, soonest eligible first. */
export async function listCommunityPending(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'config'>,
  q: CommunityPendingQuery,
): Promise<Page<CommunityPendingItem>> {
  const w = pageWindow(q);
  const status = q.status ?? 'community_pending';
  const statuses: ('community_pending' | 'objected')[] = status === 'all' ? ['community_pending', 'objected'] : [status];
  const where = and(
    inArray(faqs.promotionStatus, statuses),
    eq(faqs.reviewStatus, 'draft'),
    q.batchId ? eq(faqs.batchId, q.batchId) : undefined,
    sql`exists (select 1 from batches b where b.id = faqs.batch_id and b.deleted_at is null)`,
  ) as SQL;
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(pendingColumns)
      .from(faqs)
      .where(where)
      .orderBy(sql`${faqs.promotionEligibleAt} asc nulls last`, faqs.id)
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(faqs).where(where),
  ]);
  return toPage(await toPendingItems(ctx, rows as PendingRow[]), total?.n ?? 0, w);
}

async function pendingItem(ctx: Pick<CoreContext, 'db' | 'clock' | 'config'>, db: DbOrTx, id: string): Promise<CommunityPendingItem> {
  const [row] = await db.select(pendingColumns).from(faqs).where(eq(faqs.id, id)).limit(1);
  if (!row) throw notFound('FAQ', Code.FAQ_NOT_FOUND);
  const [item] = await toPendingItems({ ...ctx, db }, [row as PendingRow]);
  return item as CommunityPendingItem;
}

async function lockPending(tx: DbOrTx, id: string) {
  const [row] = await tx
    .select({
      id: faqs.id,
      reviewStatus: faqs.reviewStatus,
      promotionStatus: faqs.promotionStatus,
      answer: faqs.answer,
      batchId: faqs.batchId,
      question: faqs.question,
    })
    .from(faqs)
    // A deleted program's FAQ is 404, as on every read (no approval, drop or log written into it).
    .where(and(eq(faqs.id, id), inLiveProgram(faqs.batchId)))
    .for('update');
  if (!row) throw notFound('FAQ', Code.FAQ_NOT_FOUND);
  if (row.reviewStatus !== 'draft' || (row.promotionStatus !== 'community_pending' && row.promotionStatus !== 'objected')) {
    throw unprocessable(Code.FAQ_NOT_COMMUNITY_PENDING, 'Only a community-pending (or objected) draft FAQ can be promoted or objected to');
  }
  return row;
}

/** `POST /admin/faqs/:id/promote`: approve a community-pending or objected FAQ now (tea drop as for any approval). */
export async function promoteFaqNow(ctx: Ctx, actor: Actor, id: string): Promise<CommunityPendingItem> {
  return ctx.db.transaction(async (tx) => {
    const row = await lockPending(tx, id);
    requireAnswer(row.answer, 'give it one (PUT /faq/:id) before promoting');
    const now = ctx.clock.now();
    await tx
      .update(faqs)
      .set({ reviewStatus: 'approved', promotionStatus: 'promoted', lastVerifiedDate: now, updatedAt: now, updatedBy: actor.id })
      .where(eq(faqs.id, id));
    await faqApprovedDrop(tx, row);
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: 'faq.promoted',
      targetType: 'FAQ',
      targetId: id,
      details: { from: row.promotionStatus },
      batchId: row.batchId,
    });
    logPipelineStep(ctx.log, { action: 'promotion_promote', id, conf: null, verdict: 'approved', extra: { manual: true } });
    return pendingItem(ctx, tx, id);
  });
}

/** `POST /admin/faqs/:id/object {reason}`: stops automatic promotion (objected, objectionCount + 1; reason in the admin log). */
export async function objectToFaq(ctx: Ctx, actor: Actor, id: string, reason: string): Promise<CommunityPendingItem> {
  return ctx.db.transaction(async (tx) => {
    const row = await lockPending(tx, id);
    const now = ctx.clock.now();
    await tx
      .update(faqs)
      .set({ promotionStatus: 'objected', objectionCount: sql`${faqs.objectionCount} + 1`, updatedAt: now })
      .where(eq(faqs.id, id));
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: 'faq.promotion_objected',
      targetType: 'FAQ',
      targetId: id,
      reason,
      batchId: row.batchId,
    });
    logPipelineStep(ctx.log, { action: 'promotion_object', id, conf: null, verdict: 'objected' });
    return pendingItem(ctx, tx, id);
  });
}
