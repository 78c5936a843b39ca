import { aiAnswerOutcomes, communityPosts, pipelineResults } from '@cfaq/db/schema/index';
import { and, count, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { AiAnswerStatus } from '../community/shape.js';
import type { CoreContext } from '../context.js';
import { Code, invalidField, notFound, unprocessable } from '../errors/index.js';
import { inLiveProgram } from '../programs/live.js';
import type { Actor } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { hasVisibleText } from '../shared/text.js';
import { aiAnsweredEvent } from './answered-event.js';
import { reopenUnlessHumanAnswered } from './reopen.js';
import type { Calibration, CalibrationBand, QueueItem, ReviewResult } from './shape.js';

/**
 * Admin review of AI answers.
 *
 * - queue: suggested and escalated answers with answer, confidence, source, sources and reason.
 * - review actions (PATCH /admin/auto-answer/:postId), result states:
 *   approve  (from suggested, escalated or rejected): aiAnswerStatus approved, published; manualAnswer
 *            replaces the text (aiAnswerSource manual); the post becomes answered; the author gets a
 *            notification and a tea drop. 422 when there is no text to publish.
 *   reject   (from suggested, escalated or approved): aiAnswerStatus rejected; the text stays for staff
 *            only; an approved answer is unpublished (the post reopens unless a comment is accepted or verified).
 *            A rejected post is not auto-answered again until its title or body changes.
 *   escalate (from suggested, escalated, approved or rejected): aiAnswerStatus escalated with the
 *            reason; an approved answer is unpublished. From escalated it confirms the escalation: the
 *            status and aiAnswerEscalatedAt stay, a reason given replaces the old one. Escalated posts
 *            are eligible for later runs.
 *   Every action sets aiAnswerReviewedAt/By, marks the post's latest PipelineResult reviewed and is
 *   audit-logged. A post without an AI answer state, or an action from a state it does not leave, is 422.
 */
export type ReviewAction = 'approve' | 'reject' | 'escalate';

export interface QueueQuery extends PageQuery {
  batchId?: string | undefined;
  status?: 'suggested' | 'escalated' | undefined;
}

export async function listReviewQueue(ctx: Pick<CoreContext, 'db'>, q: QueueQuery): Promise<Page<QueueItem>> {
  const w = pageWindow(q);
  const where = and(
    isNull(communityPosts.deletedAt),
    q.status ? eq(communityPosts.aiAnswerStatus, q.status) : inArray(communityPosts.aiAnswerStatus, ['suggested', 'escalated']),
    q.batchId ? eq(communityPosts.batchId, q.batchId) : inLiveProgram(sql`community_posts.batch_id`, { nullable: true }),
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(communityPosts)
      .where(where)
      .orderBy(
        desc(sql`coalesce(${communityPosts.aiAnswerSuggestedAt}, ${communityPosts.aiAnswerEscalatedAt}, ${communityPosts.createdAt})`),
        desc(communityPosts.id),
      )
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(communityPosts).where(where),
  ]);
  const items = rows.map((p) => ({
    id: p.id,
    postId: p.id,
    batchId: p.batchId,
    title: p.title,
    body: p.body,
    authorId: p.authorId,
    status: p.status,
    // Listed only while suggested or escalated (the where above).
    aiAnswerStatus: p.aiAnswerStatus as AiAnswerStatus,
    answer: p.aiAnswer,
    confidence: p.aiAnswerConfidence,
    source: p.aiAnswerSource,
    sources: p.aiAnswerSources,
    reason: p.aiAnswerEscalatedReason,
    attempts: p.aiAnswerAttempts,
    suggestedAt: p.aiAnswerSuggestedAt,
    aiAnswer: p.aiAnswer,
    aiAnswerConfidence: p.aiAnswerConfidence,
    aiAnswerSource: p.aiAnswerSource,
    aiAnswerSuggestedAt: p.aiAnswerSuggestedAt,
    aiAnswerReviewedAt: p.aiAnswerReviewedAt,
    aiAnswerReviewedBy: p.aiAnswerReviewedBy,
    aiAnswerEscalatedAt: p.aiAnswerEscalatedAt,
    aiAnswerEscalatedReason: p.aiAnswerEscalatedReason,
    aiAnswerAttempts: p.aiAnswerAttempts,
    escalationStatus: p.escalationStatus,
    escalatedAt: p.escalatedAt,
    lastCheckedAt: p.lastCheckedAt,
    createdAt: p.createdAt,
  }));
  return toPage(items, total?.n ?? 0, w);
}

const FROM: Record<ReviewAction, readonly string[]> = {
  approve: ['suggested', 'escalated', 'rejected'],
  reject: ['suggested', 'escalated', 'approved'],
  // From escalated too (the spec's table: suggested or escalated, approve, reject or escalate): the
  // admin confirms the escalation; it is marked reviewed and may take a new reason.
  escalate: ['suggested', 'escalated', 'approved', 'rejected'],
};

export interface ReviewInput {
  action: ReviewAction;
  manualAnswer?: string | undefined;
  reason?: string | undefined;
}

export async function reviewAiAnswer(
  ctx: Pick<CoreContext, 'db' | 'clock'>,
  actor: Actor,
  postId: string,
  input: ReviewInput,
  ip?: string,
): Promise<ReviewResult> {
  // Only approve publishes a text: with another action it was silently dropped; a blank one published the AI text.
  if (input.manualAnswer !== undefined && input.action !== 'approve')
    throw invalidField('body.manualAnswer', 'applies only to action approve');
  if (input.manualAnswer !== undefined && !hasVisibleText(input.manualAnswer)) throw invalidField('body.manualAnswer', 'must not be blank');
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [post] = await tx
      .select()
      .from(communityPosts)
      // A deleted program's post is gone with it: its answer is not published now.
      .where(
        and(
          eq(communityPosts.id, postId),
          isNull(communityPosts.deletedAt),
          inLiveProgram(sql`community_posts.batch_id`, { nullable: true }),
        ),
      )
      .for('update')
      .limit(1);
    if (!post) throw notFound('Post', Code.POST_NOT_FOUND);
    const from = post.aiAnswerStatus;
    if (!from) throw unprocessable(Code.NO_AI_ANSWER, 'The post has no AI answer to review');
    if (!FROM[input.action].includes(from))
      throw unprocessable(Code.INVALID_REVIEW_TRANSITION, `Cannot ${input.action} an AI answer that is ${from}`);
    const reviewed = { aiAnswerReviewedAt: now, aiAnswerReviewedBy: actor.id, aiAnswerClaim: null, updatedAt: now };
    const reopen = from === 'approved' ? reopenUnlessHumanAnswered() : {};
    let set: Partial<typeof communityPosts.$inferInsert>;
    if (input.action === 'approve') {
      const manual = input.manualAnswer?.trim();
      const text = manual || post.aiAnswer?.trim();
      // Visible text, not just non-blank after trim: a stored AI text of zero-width characters is no answer.
      if (!text || !hasVisibleText(text)) throw unprocessable(Code.NO_ANSWER_TEXT, 'There is no answer text to publish; send manualAnswer');
      set = {
        ...reviewed,
        aiAnswer: text,
        aiAnswerStatus: 'approved',
        aiAnswerSource: manual ? 'manual' : post.aiAnswerSource,
        // The confidence was the model's in its own text; a staff-written answer has none (unscored in calibration).
        ...(manual ? { aiAnswerConfidence: null } : {}),
        aiAnswerEscalatedReason: null,
        aiAnswerScore: 0,
        aiAnswerNotHelpfulAt: null,
        status: 'answered',
        answeredAt: post.answeredAt ?? now,
      };
    } else if (input.action === 'reject') {
      set = { ...reviewed, ...reopen, aiAnswerStatus: 'rejected', aiAnswerEscalatedReason: input.reason ?? post.aiAnswerEscalatedReason };
    } else {
      // Already escalated: the escalation stands (its time too); a reason given replaces the old one.
      set =
        from === 'escalated'
          ? { ...reviewed, aiAnswerEscalatedReason: input.reason ?? post.aiAnswerEscalatedReason ?? 'escalated by admin review' }
          : {
              ...reviewed,
              ...reopen,
              aiAnswerStatus: 'escalated',
              aiAnswerEscalatedAt: now,
              aiAnswerEscalatedReason: input.reason ?? 'escalated by admin review',
            };
    }
    const [row] = await tx.update(communityPosts).set(set).where(eq(communityPosts.id, postId)).returning();
    const p = row as typeof communityPosts.$inferSelect;
    if (from === 'approved' && input.action !== 'approve')
      await tx
        .update(aiAnswerOutcomes)
        .set({ demotedAt: now, demotedReason: `admin ${input.action}` })
        .where(and(eq(aiAnswerOutcomes.postId, postId), isNull(aiAnswerOutcomes.demotedAt)));
    if (input.action === 'approve') {
      await tx
        .insert(aiAnswerOutcomes)
        .values({ postId, batchId: p.batchId, confidence: p.aiAnswerConfidence, publishedBy: 'admin', publishedAt: now });
      await aiAnsweredEvent(tx, {
        authorId: p.authorId,
        actorId: actor.id,
        postId,
        batchId: p.batchId,
        title: p.title,
        data: { by: 'ai_reviewed' },
      });
    }
    const [latest] = await tx
      .select({ id: pipelineResults.id })
      .from(pipelineResults)
      .where(and(eq(pipelineResults.targetId, postId), eq(pipelineResults.pipeline, 'auto_answer')))
      .orderBy(desc(pipelineResults.checkedAt))
      .limit(1);
    if (latest)
      await tx
        .update(pipelineResults)
        .set({ reviewAction: input.action, reviewedBy: actor.id, reviewedAt: now })
        .where(eq(pipelineResults.id, latest.id));
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: `auto_answer.${input.action}`,
      targetType: 'CommunityPost',
      targetId: postId,
      reason: input.reason ?? null,
      details: { from, to: p.aiAnswerStatus, manualAnswer: !!input.manualAnswer?.trim() },
      ...(ip ? { ip } : {}),
      ...(p.batchId ? { batchId: p.batchId } : {}),
    });
    return {
      postId,
      action: input.action,
      previousStatus: from,
      // Every action above sets it.
      aiAnswerStatus: p.aiAnswerStatus as AiAnswerStatus,
      aiAnswer: p.aiAnswer,
      aiAnswerSource: p.aiAnswerSource,
      aiAnswerConfidence: p.aiAnswerConfidence,
      status: p.status,
      aiAnswerEscalatedAt: p.aiAnswerEscalatedAt,
      aiAnswerEscalatedReason: p.aiAnswerEscalatedReason,
      aiAnswerReviewedAt: now,
      aiAnswerReviewedBy: actor.id,
    };
  });
}

/**
 * Per confidence band (0.05 wide, [from, to), the last band [0.95, 1.00]): AI answers published and how
 * many were later demoted. The confidence column is a `real`, so 0.9 is stored as 0.89999998: it is
 * rounded to 4 decimals before it is banded, or 0.90 would land in 0.85-0.90. Outcomes without a
 * confidence (an admin approving an answer the pipeline did not score, such as a manual answer to an
 * escalated post) belong to no band: they are counted apart, in `unscored`; `totals` are the bands'.
 */
export async function calibration(
  ctx: Pick<CoreContext, 'db'>,
  q: { batchId?: string | undefined; publishedBy?: 'auto' | 'admin' | 'all' | undefined },
): Promise<Calibration> {
  const by = q.publishedBy ?? 'auto';
  const conds: SQL[] = [];
  if (by !== 'all') conds.push(eq(aiAnswerOutcomes.publishedBy, by));
  conds.push(q.batchId ? eq(aiAnswerOutcomes.batchId, q.batchId) : inLiveProgram(sql`ai_answer_outcomes.batch_id`, { nullable: true }));
  // null for an outcome without a confidence (least() alone would skip the null and answer 19).
  const conf = sql`round(${aiAnswerOutcomes.confidence}::numeric, 4)`;
  const bucket = sql<
    number | null
  >`(CASE WHEN ${aiAnswerOutcomes.confidence} IS NULL THEN NULL ELSE least(floor(${conf} * 20), 19) END)::int`;
  const rows = await ctx.db
    .select({ b: bucket, published: count(), demoted: sql<number>`count(${aiAnswerOutcomes.demotedAt})::int` })
    .from(aiAnswerOutcomes)
    .where(conds.length ? and(...conds) : undefined)
    .groupBy(bucket)
    .orderBy(bucket);
  const unscored = { published: 0, demoted: 0 };
  const bands: CalibrationBand[] = [];
  for (const r of rows) {
    if (r.b === null) {
      unscored.published += r.published;
      unscored.demoted += r.demoted;
      continue;
    }
    const from = Math.round(r.b * 5) / 100;
    const to = Math.round((r.b + 1) * 5) / 100;
    bands.push({
      band: `${from.toFixed(2)}-${to.toFixed(2)}`,
      from,
      to,
      published: r.published,
      demoted: r.demoted,
      demotionRate: r.published ? Math.round((r.demoted / r.published) * 1000) / 1000 : null,
    });
  }
  return {
    publishedBy: by,
    bands,
    totals: { published: bands.reduce((s, b) => s + b.published, 0), demoted: bands.reduce((s, b) => s + b.demoted, 0) },
    unscored,
  };
}
