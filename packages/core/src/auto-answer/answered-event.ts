import { sql } from 'drizzle-orm';
import { notify, teaDrop } from '../notifications/index.js';
import type { DbOrTx } from '../shared/db.js';

/**
 * The post's author hears that their question was answered (a notification and a tea drop, spec:
 * "Auto-approved answer") when its AI answer is first published, automatically or by an admin's
 * review. Publishing it again after a reject or an escalation is no news (as moving an accepted
 * mark away and back), and an admin approving the answer to their own post is not told of their act.
 */
export async function aiAnsweredEvent(
  tx: DbOrTx,
  e: { authorId: string | null; actorId?: string; postId: string; batchId: string | null; title: string; data: Record<string, unknown> },
): Promise<void> {
  if (!e.authorId || e.authorId === e.actorId) return;
  const told = await tx.execute<{ told: boolean }>(sql`
    select exists (select 1 from notifications
                   where user_id = ${e.authorId} and kind = 'post_answered' and data ->> 'postId' = ${e.postId} and data ? 'by')
        or exists (select 1 from tea_notifications
                   where user_id = ${e.authorId} and kind = 'post_answered' and ref_type = 'CommunityPost' and ref_id = ${e.postId}) as told`);
  if (told.rows[0]?.told) return;
  const msg = { title: 'Your question was answered', body: e.title, link: `/community/posts/${e.postId}` };
  await notify(tx, { userId: e.authorId, batchId: e.batchId, kind: 'post_answered', ...msg, data: { postId: e.postId, ...e.data } });
  await teaDrop(tx, { userId: e.authorId, batchId: e.batchId, kind: 'post_answered', ...msg, refType: 'CommunityPost', refId: e.postId });
}
