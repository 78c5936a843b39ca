import { sql } from 'drizzle-orm';
import { notify } from '../notifications/index.js';
import type { DbOrTx } from '../shared/db.js';

export interface FirstResponderAward {
  userId: string;
  batchId: string;
  postId: string;
  postTitle: string;
}

/**
 * The first_responder badge for winning a post's time trial (community/escalation.ts), with its
 * first_responder_awarded notification. Idempotent: a user holds it at most once per program (the
 * partial unique index on live badges settles concurrent awards; the insert is conditional), so
 * awarded is false, and nothing is written, when they already had it.
 * Stand-in until the reputation module's awardBadge lands on main; then this calls it.
 */
export async function awardFirstResponderBadge(
  tx: DbOrTx,
  input: FirstResponderAward,
): Promise<{ awarded: boolean; badgeId: string | null }> {
  const reason = `First to answer "${input.postTitle}" after it went unanswered`;
  const res = await tx.execute<{ id: string }>(sql`
    insert into badges (user_id, batch_id, name, reason)
    select ${input.userId}, ${input.batchId}, 'first_responder', ${reason}
    where not exists (select 1 from badges where user_id = ${input.userId} and name = 'first_responder' and batch_id = ${input.batchId})
    on conflict do nothing
    returning id`);
  const badgeId = res.rows[0]?.id ?? null;
  if (!badgeId) return { awarded: false, badgeId: null };
  await notify(tx, {
    userId: input.userId,
    batchId: input.batchId,
    kind: 'first_responder_awarded',
    title: 'You earned the first_responder badge',
    body: reason,
    link: `/community/posts/${input.postId}`,
    data: { badge: 'first_responder', badgeId, postId: input.postId },
  });
  return { awarded: true, badgeId };
}
