import { aiAnswerOutcomes, aiAnswerVotes, communityPosts } from '@cfaq/db/schema/index';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { visiblePost } from '../community/view.js';
import type { CoreContext } from '../context.js';
import { Code, forbidden, unprocessable } from '../errors/index.js';
import type { Actor, Tx } from '../shared/db.js';
import { reopenUnlessHumanAnswered } from './reopen.js';
import type { AiAnswerState } from './shape.js';

/**
 * Accountable AI answers: a published (approved) AI answer that its post's author marks as not
 * answering, or whose votes net -2 or lower, is unpublished and re-escalated: aiAnswerStatus escalated
 * with the reason, the post reopened (unless a comment is accepted or verified), aiAnswerNotHelpfulAt stamped
 * (the run does not pick the post again until its text changes: a human looks first), and the
 * ai_answer_outcomes row marked demoted for the calibration report.
 */
export const DEMOTE_NET_VOTES = -2;

async function demote(tx: Tx, postId: string, reason: string, now: Date): Promise<boolean> {
  const rows = await tx
    .update(communityPosts)
    .set({
      aiAnswerStatus: 'escalated',
      aiAnswerEscalatedAt: now,
      aiAnswerEscalatedReason: reason,
      aiAnswerNotHelpfulAt: now,
      ...reopenUnlessHumanAnswered(),
      updatedAt: now,
    })
    .where(and(eq(communityPosts.id, postId), eq(communityPosts.aiAnswerStatus, 'approved')))
    .returning({ id: communityPosts.id });
  if (!rows.length) return false;
  await tx
    .update(aiAnswerOutcomes)
    .set({ demotedAt: now, demotedReason: reason })
    .where(and(eq(aiAnswerOutcomes.postId, postId), isNull(aiAnswerOutcomes.demotedAt)));
  return true;
}

async function stateOf(tx: Tx, actor: Actor, postId: string, demoted: boolean): Promise<AiAnswerState> {
  const [p] = await tx
    .select({ s: communityPosts.aiAnswerStatus, score: communityPosts.aiAnswerScore, status: communityPosts.status })
    .from(communityPosts)
    .where(eq(communityPosts.id, postId));
  const [v] = await tx
    .select({ value: aiAnswerVotes.value })
    .from(aiAnswerVotes)
    .where(and(eq(aiAnswerVotes.postId, postId), eq(aiAnswerVotes.userId, actor.id)));
  return {
    postId,
    aiAnswerStatus: p?.s ?? null,
    aiAnswerScore: p?.score ?? 0,
    myVote: (v?.value ?? null) as 1 | -1 | null,
    demoted,
    status: p?.status ?? 'open',
  };
}

/** The post's author says whether the published AI answer answers the question. */
export async function aiAnswerFeedback(
  ctx: Pick<CoreContext, 'db' | 'clock'>,
  actor: Actor,
  postId: string,
  helpful: boolean,
): Promise<AiAnswerState> {
  return ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, postId, { forUpdate: true });
    if (post.authorId !== actor.id) throw forbidden('Only the author of the post can mark its AI answer', Code.NOT_POST_OWNER);
    if (post.aiAnswerStatus !== 'approved') throw unprocessable(Code.NO_PUBLISHED_AI_ANSWER, 'The post has no published AI answer');
    const demoted = helpful ? false : await demote(tx, postId, "the post's author marked the AI answer as not answering", ctx.clock.now());
    return stateOf(tx, actor, postId, demoted);
  });
}

/** +1 / -1 on a published AI answer (again with the same value: no change); a net of -2 demotes it. */
export async function voteAiAnswer(
  ctx: Pick<CoreContext, 'db' | 'clock'>,
  actor: Actor,
  postId: string,
  value: 1 | -1,
): Promise<AiAnswerState> {
  return ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, postId, { forUpdate: true });
    if (post.aiAnswerStatus !== 'approved') throw unprocessable(Code.NO_PUBLISHED_AI_ANSWER, 'The post has no published AI answer');
    await tx
      .insert(aiAnswerVotes)
      .values({ postId, userId: actor.id, value, createdAt: ctx.clock.now() })
      .onConflictDoUpdate({ target: [aiAnswerVotes.postId, aiAnswerVotes.userId], set: { value } });
    const demoted = await tallyAiAnswerVotes(tx, postId, ctx.clock.now());
    return stateOf(tx, actor, postId, demoted);
  });
}

/** Sets the post's aiAnswerScore to its votes' sum; a net of -2 or lower demotes a published answer. True when it did. */
async function tallyAiAnswerVotes(tx: Tx, postId: string, now: Date): Promise<boolean> {
  const [sum] = await tx
    .select({ n: sql<number>`coalesce(sum(${aiAnswerVotes.value}), 0)::int` })
    .from(aiAnswerVotes)
    .where(eq(aiAnswerVotes.postId, postId));
  const net = sum?.n ?? 0;
  await tx.update(communityPosts).set({ aiAnswerScore: net }).where(eq(communityPosts.id, postId));
  return net <= DEMOTE_NET_VOTES ? demote(tx, postId, `the AI answer's votes reached a net of ${net}`, now) : false;
}

/**
 * Withdraws every AI-answer vote of a user about to be deleted, as if each were taken back: each post's
 * score follows its remaining votes (the rows would go with the user, the score would keep them), and
 * a net that falls to -2 demotes the answer as a vote would.
 */
export async function withdrawAiAnswerVotesOf(tx: Tx, userId: string, now: Date): Promise<void> {
  // The posts first, in id order, as a vote locks its post before it sums: a vote summing at the same
  // time would otherwise write a score that still counts this user's vote, or miss its own.
  await tx.execute(
    sql`select 1 from community_posts where id in (select post_id from ai_answer_votes where user_id = ${userId}) order by id for update`,
  );
  const gone = await tx.delete(aiAnswerVotes).where(eq(aiAnswerVotes.userId, userId)).returning({ postId: aiAnswerVotes.postId });
  for (const postId of [...new Set(gone.map((g) => g.postId))].sort()) await tallyAiAnswerVotes(tx, postId, now);
}
