import type { DbOrTx } from '../shared/db.js';
import { awardBadge } from './badges.js';

export interface FirstResponderAward {
  userId: string;
  batchId: string;
  postId: string;
  postTitle: string;
}

/**
 * The first_responder badge for winning a post's time trial (community/escalation.ts), through
 * awardBadge: at most once per user and program (also after a revoke), race-safe, with its
 * first_responder points (POINTS.first_responder) and first_responder_awarded notification.
 * awarded is false, and nothing is written, when they already had it.
 */
export async function awardFirstResponderBadge(
  tx: DbOrTx,
  input: FirstResponderAward,
): Promise<{ awarded: boolean; badgeId: string | null }> {
  return awardBadge(tx, {
    userId: input.userId,
    batchId: input.batchId,
    name: 'first_responder',
    reason: `First to answer "${input.postTitle}" after it went unanswered`,
    mode: 'once',
    data: { postId: input.postId },
  });
}
