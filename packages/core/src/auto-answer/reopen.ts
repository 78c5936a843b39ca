import { communityPosts } from '@cfaq/db/schema/index';
import { sql } from 'drizzle-orm';
import { humanAnswered } from '../community/view.js';

/**
 * The post's status and answeredAt once its published AI answer is taken down (an admin's reject or
 * escalate, the author's "not helpful", votes): an answered post reopens unless a person answered it,
 * with a comment accepted or verified (humanAnswered, as the time trial counts answers).
 */
export function reopenUnlessHumanAnswered() {
  const reopens = sql`${communityPosts.acceptedCommentId} is null and not ${humanAnswered(sql`${communityPosts.id}`)} and ${communityPosts.status} = 'answered'`;
  return {
    status: sql`case when ${reopens} then 'open'::post_status else ${communityPosts.status} end`,
    answeredAt: sql`case when ${reopens} then null else ${communityPosts.answeredAt} end`,
  };
}
