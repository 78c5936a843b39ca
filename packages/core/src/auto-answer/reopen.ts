import { comments, communityPosts } from '@cfaq/db/schema/index';
import { and, eq, isNull, sql } from 'drizzle-orm';

/**
 * The post's status and answeredAt once its published AI answer is taken down (an admin's reject or
 * escalate, the author's "not helpful", votes): an answered post reopens unless a person answered it,
 * with a comment accepted or verified (the answers the time trial and convert count too).
 */
export function reopenUnlessHumanAnswered() {
  const verified = sql`exists (select 1 from ${comments} where ${and(
    eq(comments.postId, communityPosts.id),
    eq(comments.isVerified, true),
    isNull(comments.deletedAt),
  )})`;
  const reopens = sql`${communityPosts.acceptedCommentId} is null and not ${verified} and ${communityPosts.status} = 'answered'`;
  return {
    status: sql`case when ${reopens} then 'open'::post_status else ${communityPosts.status} end`,
    answeredAt: sql`case when ${reopens} then null else ${communityPosts.answeredAt} end`,
  };
}
