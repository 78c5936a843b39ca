import { comments, communityPosts } from '@cfaq/db/schema/index';
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, forbidden, unprocessable } from '../errors/index.js';
import { notify, teaDrop } from '../notifications/index.js';
import { reputationOnAccept, reputationOnVerify } from '../reputation/events.js';
import { type Actor, type DbOrTx, isStaff } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { claimFirstResponder } from './escalation.js';
import { logPostModeration } from './moderation-log.js';
import { getPost } from './posts.js';
import type { AcceptResult, CommentView, Vote, VoteOutcome } from './shape.js';
import { canManagePost, commentColumns, commentMyVote, commentViewFor, type PostRow, visibleComment, visiblePost } from './view.js';
import { castVote } from './votes.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** The post_answered pair: an in-app notification and a personal tea drop. */
async function answeredEvent(
  tx: DbOrTx,
  userId: string,
  post: Pick<PostRow, 'id' | 'batchId' | 'title'>,
  title: string,
  commentId: string,
) {
  const link = `/community/posts/${post.id}`;
  await notify(tx, {
    userId,
    batchId: post.batchId,
    kind: 'post_answered',
    title,
    body: post.title,
    link,
    data: { postId: post.id, commentId },
  });
  await teaDrop(tx, {
    userId,
    batchId: post.batchId,
    kind: 'post_answered',
    title,
    body: post.title,
    link,
    refType: 'comment',
    refId: commentId,
  });
}

/**
 * Whether the user already heard that this comment was accepted: their post_answered notification or
 * tea drop about it. Only an accept sends those to the comment's author (a new comment's pair goes to
 * the post's author, who did not write it). Moving the accepted mark away and back takes the
 * reputation award back and gives it again, but it is news only the first time.
 */
async function toldOfAccept(tx: DbOrTx, userId: string, commentId: string): Promise<boolean> {
  const res = await tx.execute<{ told: boolean }>(sql`
    select exists (select 1 from notifications
                   where user_id = ${userId} and kind = 'post_answered' and data ->> 'commentId' = ${commentId})
        or exists (select 1 from tea_notifications
                   where user_id = ${userId} and kind = 'post_answered' and ref_type = 'comment' and ref_id = ${commentId}) as told`);
  return res.rows[0]?.told ?? false;
}

async function commentById(db: DbOrTx, actor: Actor | null, id: string): Promise<CommentView> {
  const [row] = await db
    .select({ ...commentColumns, myVote: commentMyVote(actor), postAuthorId: communityPosts.authorId })
    .from(comments)
    .innerJoin(communityPosts, eq(communityPosts.id, comments.postId))
    .where(eq(comments.id, id))
    .limit(1);
  const { postAuthorId, ...comment } = row as NonNullable<typeof row>;
  return commentViewFor(actor, postAuthorId)(comment);
}

/** A comment on a live post; the post author hears of it (post_answered) unless they wrote it. */
export async function addComment(ctx: Ctx, actor: Actor, postId: string, body: string): Promise<CommentView> {
  return ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, postId, { forUpdate: true });
    if (post.status === 'closed') throw unprocessable(Code.POST_CLOSED, 'The post is closed to new comments');
    const now = ctx.clock.now();
    const [row] = await tx
      .insert(comments)
      .values({ postId, authorId: actor.id, body, createdAt: now, updatedAt: now })
      .returning({ id: comments.id });
    const id = (row as { id: string }).id;
    await tx
      .update(communityPosts)
      .set({ commentCount: sql`${communityPosts.commentCount} + 1` })
      .where(eq(communityPosts.id, postId));
    if (post.authorId && post.authorId !== actor.id) await answeredEvent(tx, post.authorId, post, 'Someone answered your post', id);
    // A post in its time trial: the first responder wins it (first_responder badge), see escalation.ts.
    if (post.status === 'pending') await claimFirstResponder(ctx, tx, post, actor.id, id);
    return commentById(tx, actor, id);
  });
}

/** Accepted first, then verified, then oldest first. */
export async function listComments(
  ctx: Pick<CoreContext, 'db'>,
  actor: Actor | null,
  postId: string,
  q: PageQuery,
): Promise<Page<CommentView>> {
  const post = await visiblePost(ctx.db, actor, postId);
  const w = pageWindow(q);
  const where = and(eq(comments.postId, postId), isNull(comments.deletedAt));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ ...commentColumns, myVote: commentMyVote(actor) })
      .from(comments)
      .where(where)
      .orderBy(desc(comments.isAccepted), desc(comments.isVerified), asc(comments.createdAt), asc(comments.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(comments).where(where),
  ]);
  return toPage(rows.map(commentViewFor(actor, post.authorId)), total?.n ?? 0, w);
}

export async function voteComment(
  ctx: Pick<CoreContext, 'db'>,
  actor: Actor,
  postId: string,
  commentId: string,
  value: Vote,
): Promise<VoteOutcome> {
  return ctx.db.transaction(async (tx) => {
    const { comment } = await visibleComment(tx, actor, postId, commentId);
    if (comment.authorId === actor.id) throw forbidden('You cannot vote on your own comment', Code.CANNOT_VOTE_OWN);
    return castVote(tx, 'comment', commentId, actor.id, value);
  });
}

/**
 * "Does not answer": the post author or staff mark (dna = true) or unmark a comment as not
 * answering the question. An accepted or verified comment cannot be marked (422).
 */
export async function setCommentDna(ctx: Ctx, actor: Actor, postId: string, commentId: string, dna: boolean): Promise<CommentView> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    // Read under the post's lock: a delete of the post racing the mark is seen (404, nothing logged).
    const { post, comment } = await visibleComment(tx, actor, postId, commentId, { forUpdate: true });
    if (!canManagePost(actor, post)) throw forbidden('Only the post author or a moderator can mark answers', Code.NOT_POST_OWNER);
    if (dna && (comment.isAccepted || comment.isVerified))
      throw unprocessable(Code.COMMENT_IS_ANSWER, 'An accepted or verified comment answers the post');
    // Only a change is written and logged: marking a marked comment keeps who marked it first, and
    // unmarking an unmarked one logs nothing. The mark also needs a comment that is still no answer
    // when it is written: an accept or verify racing it (which clear the mark) would otherwise leave a
    // comment both accepted and "does not answer".
    const changed = await tx
      .update(comments)
      .set(dna ? { dna: true, dnaBy: actor.id, dnaAt: now, updatedAt: now } : { dna: false, dnaBy: null, dnaAt: null, updatedAt: now })
      .where(
        dna
          ? and(eq(comments.id, commentId), eq(comments.dna, false), eq(comments.isAccepted, false), eq(comments.isVerified, false))
          : and(eq(comments.id, commentId), eq(comments.dna, true)),
      )
      .returning({ id: comments.id });
    if (changed.length > 0) {
      await logPostModeration(tx, actor, post, dna ? 'mark_dna' : 'unmark_dna', { commentId });
      return;
    }
    if (!dna) return;
    const [current] = await tx.select({ dna: comments.dna }).from(comments).where(eq(comments.id, commentId));
    // Accepted or verified since it was read (each takes the post's lock too, so only a writer that does
    // not, none today, could get here), or gone: the read below answers 404 then.
    if (current && !current.dna) throw unprocessable(Code.COMMENT_IS_ANSWER, 'An accepted or verified comment answers the post');
  });
  return commentById(ctx.db, actor, commentId);
}

const answeredNow = (now: Date) => ({
  status: 'answered' as const,
  answeredAt: sql`coalesce(${communityPosts.answeredAt}, ${now.toISOString()}::timestamptz)`,
  updatedAt: now,
});

/** Staff mark a comment as a verified-correct answer: its dna mark goes, an open post becomes answered. */
export async function verifyComment(ctx: Ctx, actor: Actor, postId: string, commentId: string): Promise<CommentView> {
  if (!isStaff(actor)) throw forbidden();
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    // Under the post's lock, as accept: a delete racing the verify lands first (404, no points) or after.
    const { post } = await visibleComment(tx, actor, postId, commentId, { forUpdate: true });
    const verified = await tx
      .update(comments)
      .set({ isVerified: true, verifiedBy: actor.id, verifiedAt: now, dna: false, dnaBy: null, dnaAt: null, updatedAt: now })
      .where(and(eq(comments.id, commentId), eq(comments.isVerified, false)))
      .returning({ id: comments.id });
    if (verified.length > 0) {
      await reputationOnVerify(tx, commentId, actor.id);
      await logPostModeration(tx, actor, post, 'verify_answer', { commentId });
    }
    await tx
      .update(communityPosts)
      .set(answeredNow(now))
      .where(and(eq(communityPosts.id, postId), inArray(communityPosts.status, ['open', 'pending'])));
  });
  return commentById(ctx.db, actor, commentId);
}

/**
 * The post author or staff accept a comment as the answer: the post becomes answered with
 * acceptedCommentId set (a previously accepted comment is unaccepted), the comment isAccepted, and
 * its author gets a post_answered notification and tea drop (the first time this comment is accepted
 * only: moving the mark back to it sends none). Accepting the accepted comment again changes nothing.
 */
export async function acceptComment(ctx: Ctx, actor: Actor, postId: string, commentId: string): Promise<AcceptResult> {
  // The answer is read before commit: after it, a delete of the post could already hide it, and an
  // accept that was saved (points, notification) was answered 404.
  const result = async (tx: DbOrTx) => ({
    post: await getPost({ db: tx }, actor, postId),
    comment: await commentById(tx, actor, commentId),
  });
  return ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, postId, { forUpdate: true });
    if (!canManagePost(actor, post)) throw forbidden('Only the post author or a moderator can accept an answer', Code.NOT_POST_OWNER);
    const { comment } = await visibleComment(tx, actor, postId, commentId);
    if (post.acceptedCommentId === commentId && comment.isAccepted) return result(tx);
    const now = ctx.clock.now();
    await tx
      .update(comments)
      .set({ isAccepted: false, updatedAt: now })
      .where(and(eq(comments.postId, postId), eq(comments.isAccepted, true)));
    await tx
      .update(comments)
      .set({ isAccepted: true, dna: false, dnaBy: null, dnaAt: null, updatedAt: now })
      .where(eq(comments.id, commentId));
    await tx
      .update(communityPosts)
      .set({ ...answeredNow(now), acceptedCommentId: commentId })
      .where(eq(communityPosts.id, postId));
    await reputationOnAccept(tx, commentId, actor.id, post.acceptedCommentId);
    await logPostModeration(tx, actor, post, 'accept_answer', { commentId });
    if (comment.authorId && comment.authorId !== actor.id && !(await toldOfAccept(tx, comment.authorId, commentId)))
      await answeredEvent(tx, comment.authorId, post, 'Your answer was accepted', commentId);
    return result(tx);
  });
}

/**
 * Unanswered comments, as the escalation check counts them: live comments on the post that the
 * post author or staff marked "does not answer" (dna) and that are neither accepted nor verified.
 */
export async function countUnansweredComments(ctx: Pick<CoreContext, 'db'>, postId: string): Promise<number> {
  const [row] = await ctx.db
    .select({ n: count() })
    .from(comments)
    .where(
      and(
        eq(comments.postId, postId),
        isNull(comments.deletedAt),
        eq(comments.dna, true),
        eq(comments.isAccepted, false),
        eq(comments.isVerified, false),
      ),
    );
  return row?.n ?? 0;
}
