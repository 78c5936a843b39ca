import { communityPosts } from '@cfaq/db/schema/index';
import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { embedRowJob } from '../embeddings/embed-row-job.js';
import { Code, forbidden, notFound, unprocessable } from '../errors/index.js';
import { withdrawPostKnowledge } from '../knowledge/withdraw.js';
import { notify } from '../notifications/index.js';
import { lockProgramForWrite } from '../programs/lock.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type Actor, isStaff } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { logPostModeration } from './moderation-log.js';
import type { PostView, Vote, VoteOutcome } from './shape.js';
import { canManagePost, type PostRow, postColumns, postMyVote, postVisibleTo, toPostView, visiblePost } from './view.js';
import { castVote } from './votes.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'jobs'>;

export interface ListPostsQuery extends PageQuery {
  batchId?: string | undefined;
  status?: PostRow['status'] | undefined;
  authorId?: string | undefined;
}

export async function listPosts(ctx: Pick<CoreContext, 'db'>, actor: Actor | null, q: ListPostsQuery): Promise<Page<PostView>> {
  const w = pageWindow(q);
  const batchId = await resolveProgramId(ctx, q.batchId, { allowArchived: isStaff(actor) });
  const where = and(
    eq(communityPosts.batchId, batchId),
    postVisibleTo(actor),
    q.status ? eq(communityPosts.status, q.status) : undefined,
    q.authorId ? eq(communityPosts.authorId, q.authorId) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ ...postColumns, myVote: postMyVote(actor) })
      .from(communityPosts)
      .where(where)
      .orderBy(desc(communityPosts.createdAt), desc(communityPosts.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(communityPosts).where(where),
  ]);
  return toPage(
    rows.map((r) => toPostView(r, actor)),
    total?.n ?? 0,
    w,
  );
}

export async function getPost(ctx: Pick<CoreContext, 'db'>, actor: Actor | null, id: string): Promise<PostView> {
  const [row] = await ctx.db
    .select({ ...postColumns, myVote: postMyVote(actor) })
    .from(communityPosts)
    .where(and(eq(communityPosts.id, id), postVisibleTo(actor)))
    .limit(1);
  if (!row) throw notFound('Post', Code.POST_NOT_FOUND);
  return toPostView(row, actor);
}

export async function createPost(
  ctx: Ctx,
  actor: Actor,
  input: { title: string; body: string; batchId?: string | undefined },
): Promise<PostView> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    // The program is locked until commit: a delete racing the post either waits for it or makes it a 404.
    const batchId = await lockProgramForWrite(tx, input.batchId);
    const [row] = await tx
      .insert(communityPosts)
      .values({ batchId, authorId: actor.id, title: input.title, body: input.body, createdAt: now, updatedAt: now })
      .returning({ id: communityPosts.id });
    const postId = (row as { id: string }).id;
    await ctx.jobs.send(embedRowJob, { table: 'community_posts', id: postId }, { tx });
    // Read before commit: after it, a program delete could already hide the post just written.
    return getPost({ db: tx }, actor, postId);
  });
}

/** The author or staff edit title and body; a text change re-embeds the post. */
export async function updatePost(
  ctx: Ctx,
  actor: Actor,
  id: string,
  input: { title?: string | undefined; body?: string | undefined },
): Promise<PostView> {
  return ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, id, { forUpdate: true });
    if (!canManagePost(actor, post)) throw forbidden('Only the author or a moderator can edit this post', Code.NOT_POST_OWNER);
    const set: Partial<typeof communityPosts.$inferInsert> = {};
    if (input.title !== undefined && input.title !== post.title) set.title = input.title;
    if (input.body !== undefined && input.body !== post.body) set.body = input.body;
    if (Object.keys(set).length === 0) return getPost({ db: tx }, actor, id);
    // A changed question may be auto-answered again: a rejected AI answer, a staff escalation (both
    // were decisions about the old question) or a demoted answer no longer holds it back.
    if (post.aiAnswerStatus === 'rejected' || (post.aiAnswerStatus === 'escalated' && post.aiAnswerReviewedAt)) set.aiAnswerStatus = null;
    set.aiAnswerNotHelpfulAt = null;
    await tx
      .update(communityPosts)
      .set({ ...set, updatedAt: ctx.clock.now() })
      .where(eq(communityPosts.id, id));
    await logPostModeration(tx, actor, post, 'edit_post', { fields: Object.keys(set).filter((k) => k === 'title' || k === 'body') });
    await ctx.jobs.send(embedRowJob, { table: 'community_posts', id }, { tx });
    // Read before commit: after it, a delete could already hide the post, and an edit that was saved
    // was answered 404.
    return getPost({ db: tx }, actor, id);
  });
}

/**
 * Soft delete by the author or staff; the author is notified (post_deleted) when someone else deleted
 * it. Knowledge made from the post's answers (process-upvotes) is withdrawn in the same transaction
 * (knowledge/withdraw.ts).
 */
export async function deletePost(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, id, { forUpdate: true });
    if (!canManagePost(actor, post)) throw forbidden('Only the author or a moderator can delete this post', Code.NOT_POST_OWNER);
    const now = ctx.clock.now();
    await tx.update(communityPosts).set({ deletedAt: now, updatedAt: now }).where(eq(communityPosts.id, id));
    await withdrawPostKnowledge(tx, id, actor.id, now);
    await logPostModeration(tx, actor, post, 'delete_post');
    if (post.authorId && post.authorId !== actor.id) {
      await notify(tx, {
        userId: post.authorId,
        batchId: post.batchId,
        kind: 'post_deleted',
        title: 'Your post was removed',
        body: post.title,
        // Not who removed it: the author's own rows (their export too) never name the acting staff member.
        data: { postId: id },
      });
    }
  });
}

/**
 * Resolve: the author (or staff) says the question is answered. open or pending -> answered
 * (answeredAt = now), with or without an accepted comment. An answered or closed post -> 422.
 */
export async function resolvePost(ctx: Ctx, actor: Actor, id: string): Promise<PostView> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    // Under the post's lock: a delete racing the resolve is seen (404, nothing logged).
    const post = await visiblePost(tx, actor, id, { forUpdate: true });
    if (!canManagePost(actor, post)) throw forbidden('Only the author or a moderator can resolve this post', Code.NOT_POST_OWNER);
    const [row] = await tx
      .update(communityPosts)
      .set({ status: 'answered', answeredAt: now, updatedAt: now })
      .where(and(eq(communityPosts.id, id), inArray(communityPosts.status, ['open', 'pending'])))
      .returning({ id: communityPosts.id });
    if (!row) throw unprocessable(Code.POST_NOT_OPEN, `The post is already ${post.status}`);
    await logPostModeration(tx, actor, post, 'resolve_post');
    // Read before commit, as an edit: a delete that follows must not turn a done resolve into a 404.
    return getPost({ db: tx }, actor, id);
  });
}

export async function votePost(ctx: Pick<CoreContext, 'db'>, actor: Actor, id: string, value: Vote): Promise<VoteOutcome> {
  return ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, id);
    if (post.authorId === actor.id) throw forbidden('You cannot vote on your own post', Code.CANNOT_VOTE_OWN);
    return castVote(tx, 'post', id, actor.id, value);
  });
}
