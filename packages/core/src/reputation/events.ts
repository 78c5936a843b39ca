import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../shared/db.js';
import { awardPoints, reversePoints } from './awards.js';
import { awardBadge } from './badges.js';
import { POINTS } from './points.js';

/** The default program's id, for rows written before programs were set on everything. */
const programOf = (batchId: ReturnType<typeof sql>) =>
  sql`coalesce(${batchId}, (select id from batches where is_default and deleted_at is null limit 1))`;

type Owner = {
  author_id: string | null;
  batch_id: string | null;
};

async function postOwner(tx: DbOrTx, postId: string): Promise<Owner | undefined> {
  const res = await tx.execute<Owner>(
    sql`select author_id, ${programOf(sql`batch_id`)} as batch_id from community_posts where id = ${postId}`,
  );
  return res.rows[0];
}

async function commentOwner(tx: DbOrTx, commentId: string): Promise<(Owner & { post_author_id: string | null }) | undefined> {
  const res = await tx.execute<Owner & { post_author_id: string | null }>(sql`
    select c.author_id, p.author_id as post_author_id, ${programOf(sql`p.batch_id`)} as batch_id
    from comments c join community_posts p on p.id = c.post_id where c.id = ${commentId}`);
  return res.rows[0];
}

/**
 * A vote on a post or comment changed from `before` to `after` (1, -1 or null for none). The
 * target's author loses the points of the old vote and gets those of the new one; one live award
 * per voter and target (key `<kind>_vote:<target>:<voter>`). Own votes earn nothing.
 */
export async function reputationOnVote(
  tx: DbOrTx,
  kind: 'post' | 'comment',
  targetId: string,
  voterId: string,
  before: 1 | -1 | null,
  after: 1 | -1 | null,
): Promise<void> {
  if (before === after) return;
  const key = `${kind}_vote:${targetId}:${voterId}`;
  if (before !== null) await reversePoints(tx, key, voterId);
  if (after === null) return;
  const owner = kind === 'post' ? await postOwner(tx, targetId) : await commentOwner(tx, targetId);
  if (!owner?.author_id || !owner.batch_id || owner.author_id === voterId) return;
  const reason = `${kind}_${after === 1 ? 'upvoted' : 'downvoted'}` as const;
  await awardPoints(tx, {
    userId: owner.author_id,
    batchId: owner.batch_id,
    points: POINTS[reason],
    reason,
    sourceType: kind,
    sourceId: targetId,
    sourceKey: key,
    awardedBy: voterId,
  });
}

/**
 * A comment was accepted as the answer (the previously accepted one, if any, loses its points).
 * Accepting your own comment earns nothing, nor does the post author's own answer to their question
 * when staff accept it (a self-answer, which Stack Overflow-style sites do not reward either). The
 * first accepted answer in a program earns first_answer.
 */
export async function reputationOnAccept(tx: DbOrTx, commentId: string, by: string, previousCommentId: string | null): Promise<void> {
  if (previousCommentId && previousCommentId !== commentId) await reversePoints(tx, `comment_accepted:${previousCommentId}`, by);
  const owner = await commentOwner(tx, commentId);
  if (!owner?.author_id || !owner.batch_id || owner.author_id === by || owner.author_id === owner.post_author_id) return;
  const row = await awardPoints(tx, {
    userId: owner.author_id,
    batchId: owner.batch_id,
    points: POINTS.answer_accepted,
    reason: 'answer_accepted',
    sourceType: 'comment',
    sourceId: commentId,
    sourceKey: `comment_accepted:${commentId}`,
    awardedBy: by,
  });
  if (row) await awardBadge(tx, { userId: owner.author_id, batchId: owner.batch_id, name: 'first_answer', data: { commentId } });
}

/**
 * Staff verified a comment: its author earns comment_verified once, and verified_answer the first time;
 * not staff verifying their own comment (as no vote or accept of one's own earns anything).
 */
export async function reputationOnVerify(tx: DbOrTx, commentId: string, by: string): Promise<void> {
  const owner = await commentOwner(tx, commentId);
  if (!owner?.author_id || !owner.batch_id || owner.author_id === by) return;
  const row = await awardPoints(tx, {
    userId: owner.author_id,
    batchId: owner.batch_id,
    points: POINTS.comment_verified,
    reason: 'comment_verified',
    sourceType: 'comment',
    sourceId: commentId,
    sourceKey: `comment_verified:${commentId}`,
    awardedBy: by,
  });
  if (row) await awardBadge(tx, { userId: owner.author_id, batchId: owner.batch_id, name: 'verified_answer', data: { commentId } });
}

/** A post became a FAQ: its author earns post_converted once, and faq_author the first time; not staff converting their own post. */
export async function reputationOnConvert(tx: DbOrTx, postId: string, by: string): Promise<void> {
  const owner = await postOwner(tx, postId);
  if (!owner?.author_id || !owner.batch_id || owner.author_id === by) return;
  const row = await awardPoints(tx, {
    userId: owner.author_id,
    batchId: owner.batch_id,
    points: POINTS.post_converted,
    reason: 'post_converted',
    sourceType: 'post',
    sourceId: postId,
    sourceKey: `post_converted:${postId}`,
    awardedBy: by,
  });
  if (row) await awardBadge(tx, { userId: owner.author_id, batchId: owner.batch_id, name: 'faq_author', data: { postId } });
}

/**
 * A reader's feedback on a FAQ is now helpful or not. The FAQ's author earns faq_feedback_helpful
 * while the feedback says helpful (changing it to not helpful takes the points back); for a FAQ
 * made from a community post the author is the post's author, else the FAQ's creator. Feedback on
 * your own FAQ earns nothing.
 */
export async function reputationOnFeedback(tx: DbOrTx, faqId: string, readerId: string, helpful: boolean): Promise<void> {
  const key = `faq_feedback:${faqId}:${readerId}`;
  if (!helpful) {
    await reversePoints(tx, key, readerId);
    return;
  }
  const res = await tx.execute<Owner>(sql`
    select coalesce(p.author_id, f.created_by) as author_id, ${programOf(sql`f.batch_id`)} as batch_id
    from faqs f left join community_posts p on f.source = 'community_post' and p.id = f.source_id
    where f.id = ${faqId}`);
  const owner = res.rows[0];
  if (!owner?.author_id || !owner.batch_id || owner.author_id === readerId) return;
  await awardPoints(tx, {
    userId: owner.author_id,
    batchId: owner.batch_id,
    points: POINTS.faq_feedback_helpful,
    reason: 'faq_feedback_helpful',
    sourceType: 'faq',
    sourceId: faqId,
    sourceKey: key,
    awardedBy: readerId,
  });
}
