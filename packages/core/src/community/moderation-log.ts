import { writeModerationLog } from '../audit/index.js';
import type { Actor, DbOrTx } from '../shared/db.js';
import type { PostRow } from './view.js';

/** What staff may do to someone else's post, each a verb of the moderation log. */
export type PostModeration = 'edit_post' | 'delete_post' | 'resolve_post' | 'accept_answer' | 'mark_dna' | 'unmark_dna' | 'verify_answer';

/**
 * Staff acting on someone else's post is moderation: logged (GET /moderation/logs, kind=moderation) in
 * the write's transaction, with the post's author as target and the post's id and title (and the
 * comment acted on). What authors do to their own posts is not.
 */
export async function logPostModeration(
  db: DbOrTx,
  actor: Actor,
  post: Pick<PostRow, 'id' | 'authorId' | 'title' | 'batchId'>,
  action: PostModeration,
  details: Record<string, unknown> = {},
): Promise<void> {
  if (post.authorId === actor.id) return;
  await writeModerationLog(db, {
    actorId: actor.id,
    targetUserId: post.authorId,
    action,
    details: { postId: post.id, title: post.title, batchId: post.batchId, ...details },
  });
}
