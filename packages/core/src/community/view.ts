import { batches, comments, commentVotes, communityPosts, postVotes } from '@cfaq/db/schema/index';
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { Code, notFound } from '../errors/index.js';
import { type Actor, type DbOrTx, isStaff } from '../shared/db.js';
import type { CommentView, PostView, Vote } from './shape.js';

export const postColumns = {
  id: communityPosts.id,
  batchId: communityPosts.batchId,
  authorId: communityPosts.authorId,
  title: communityPosts.title,
  body: communityPosts.body,
  status: communityPosts.status,
  upvotes: communityPosts.upvotes,
  downvotes: communityPosts.downvotes,
  commentCount: communityPosts.commentCount,
  acceptedCommentId: communityPosts.acceptedCommentId,
  convertedFaqId: communityPosts.convertedFaqId,
  aiAnswer: communityPosts.aiAnswer,
  aiAnswerConfidence: communityPosts.aiAnswerConfidence,
  aiAnswerStatus: communityPosts.aiAnswerStatus,
  aiAnswerSource: communityPosts.aiAnswerSource,
  aiAnswerSuggestedAt: communityPosts.aiAnswerSuggestedAt,
  aiAnswerReviewedAt: communityPosts.aiAnswerReviewedAt,
  aiAnswerReviewedBy: communityPosts.aiAnswerReviewedBy,
  aiAnswerEscalatedAt: communityPosts.aiAnswerEscalatedAt,
  aiAnswerEscalatedReason: communityPosts.aiAnswerEscalatedReason,
  aiAnswerAttempts: communityPosts.aiAnswerAttempts,
  lastCheckedAt: communityPosts.lastCheckedAt,
  escalationStatus: communityPosts.escalationStatus,
  escalatedAt: communityPosts.escalatedAt,
  answeredAt: communityPosts.answeredAt,
  createdAt: communityPosts.createdAt,
  updatedAt: communityPosts.updatedAt,
};

export type PostRow = { [K in keyof typeof postColumns]: (typeof communityPosts.$inferSelect)[K] };

export const postMyVote = (actor: Actor | null) =>
  actor
    ? sql<Vote | null>`(select v.value from ${postVotes} v where v.post_id = community_posts.id and v.user_id = ${actor.id})`
    : sql<null>`null`;

/**
 * A post as `reader` may see it. An AI answer that is not approved (suggested or escalated) waits for
 * staff review, and the escalation reason is moderation text: for anyone else the answer, its
 * confidence and source, and the reason are null (the statuses and times stay visible). Which staff
 * member reviewed the answer is staff-only, as `verifiedBy` and a staff `dnaBy` are.
 */
export const toPostView = ({ myVote, ...row }: PostRow & { myVote: number | null }, reader: Actor | null): PostView => {
  const view: PostView = { ...row, myVote: (myVote ?? null) as Vote | null };
  if (isStaff(reader)) return view;
  view.aiAnswerEscalatedReason = null;
  view.aiAnswerReviewedBy = null;
  if (row.aiAnswerStatus !== 'approved') {
    view.aiAnswer = null;
    view.aiAnswerConfidence = null;
    view.aiAnswerSource = null;
  }
  return view;
};

/** Not deleted, and in a program the caller may read (archived programs: staff only). */
export function postVisibleTo(actor: Actor | null): SQL {
  const archived = isStaff(actor) ? sql`` : sql` and b.archived_at is null`;
  return and(
    isNull(communityPosts.deletedAt),
    sql`(community_posts.batch_id is null or exists (select 1 from ${batches} b where b.id = community_posts.batch_id and b.deleted_at is null${archived}))`,
  ) as SQL;
}

/** A post the caller may see, or 404. */
export async function visiblePost(db: DbOrTx, actor: Actor | null, id: string, opts: { forUpdate?: boolean } = {}): Promise<PostRow> {
  const q = db
    .select(postColumns)
    .from(communityPosts)
    .where(and(eq(communityPosts.id, id), postVisibleTo(actor)))
    .limit(1);
  const [row] = opts.forUpdate ? await q.for('update', { of: communityPosts }) : await q;
  if (!row) throw notFound('Post', Code.POST_NOT_FOUND);
  return row;
}

export const commentColumns = {
  id: comments.id,
  postId: comments.postId,
  authorId: comments.authorId,
  body: comments.body,
  upvotes: comments.upvotes,
  downvotes: comments.downvotes,
  isAccepted: comments.isAccepted,
  isVerified: comments.isVerified,
  verifiedBy: comments.verifiedBy,
  verifiedAt: comments.verifiedAt,
  dna: comments.dna,
  dnaBy: comments.dnaBy,
  dnaAt: comments.dnaAt,
  createdAt: comments.createdAt,
  updatedAt: comments.updatedAt,
};

export type CommentRow = { [K in keyof typeof commentColumns]: (typeof comments.$inferSelect)[K] };

export const commentMyVote = (actor: Actor | null) =>
  actor
    ? sql<Vote | null>`(select v.value from ${commentVotes} v where v.comment_id = comments.id and v.user_id = ${actor.id})`
    : sql<null>`null`;

/**
 * A comment as `reader` sees it. Who marked it "does not answer" is shown to staff, and to everyone when
 * the post's author marked it (named on the post anyway); which staff member marked or verified it is
 * staff-only, as in the comment author's own export.
 */
export const commentViewFor =
  (reader: Actor | null, postAuthorId: string | null) =>
  ({ myVote, ...row }: CommentRow & { myVote: number | null }): CommentView => ({
    ...row,
    dnaBy: isStaff(reader) || (row.dnaBy !== null && row.dnaBy === postAuthorId) ? row.dnaBy : null,
    // Only staff verify: which one is staff-only, as which one marked a comment "does not answer".
    verifiedBy: isStaff(reader) ? row.verifiedBy : null,
    myVote: (myVote ?? null) as Vote | null,
  });

/** A live comment of a visible post, or 404. */
/** `forUpdate` locks the post (inside a transaction), so a delete racing the caller's write lands before it or after. */
export async function visibleComment(
  db: DbOrTx,
  actor: Actor | null,
  postId: string,
  commentId: string,
  opts: { forUpdate?: boolean } = {},
) {
  const post = await visiblePost(db, actor, postId, opts);
  const [comment] = await db
    .select({ ...commentColumns, myVote: commentMyVote(actor) })
    .from(comments)
    .where(and(eq(comments.id, commentId), eq(comments.postId, postId), isNull(comments.deletedAt)))
    .limit(1);
  if (!comment) throw notFound('Comment', Code.COMMENT_NOT_FOUND);
  return { post, comment };
}

/** The post's author or staff; others get 403. */
/**
 * A person answered the post: a live comment of it is accepted or verified. What the time trial waits
 * for, and what keeps a post answered when its AI answer is taken down.
 */
export const humanAnswered = (postId: SQL) =>
  sql`exists (select 1 from comments c where c.post_id = ${postId} and c.deleted_at is null and (c.is_accepted or c.is_verified))`;

export const canManagePost = (actor: Actor, post: Pick<PostRow, 'authorId'>) => isStaff(actor) || post.authorId === actor.id;
