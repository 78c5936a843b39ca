import { documentInsights } from '@cfaq/db/schema/index';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../shared/db.js';

/** `document_insights.source_type` of the knowledge process-upvotes makes from community answers (source_ref: the comment id). */
export const COMMUNITY_KNOWLEDGE_SOURCE = 'community_post';

/**
 * A deleted community post takes the knowledge made from its answers out of the knowledge base: the
 * approved and pending_review DocumentInsight rows whose source comment is on the post become
 * `rejected` (reviewedBy: whoever deleted the post), in the deleting transaction. Every read of the
 * knowledge base (POST /search, the knowledge search and chat, auto-answer, the FAQ audit) reads
 * approved rows only, and the status change moves the search cache's generation at commit (migration
 * 0019's trigger). The row stays, so process-upvotes (once per comment) never makes it again, and an
 * admin cannot approve it back (setKnowledgeStatus). A promoted row is left alone: the FAQ it became
 * is curated content of its own.
 */
export async function withdrawPostKnowledge(tx: DbOrTx, postId: string, by: string | null, now: Date): Promise<number> {
  const rows = await tx
    .update(documentInsights)
    .set({ status: 'rejected', reviewedBy: by, reviewedAt: now, updatedAt: now })
    .where(
      and(
        eq(documentInsights.sourceType, COMMUNITY_KNOWLEDGE_SOURCE),
        inArray(documentInsights.status, ['approved', 'pending_review']),
        sql`${documentInsights.sourceRef} in (select c.id::text from comments c where c.post_id = ${postId})`,
      ),
    )
    .returning({ id: documentInsights.id });
  return rows.length;
}

/**
 * Whether the community answer a knowledge row was made from still stands (its comment and post not
 * deleted), locking the post against a concurrent delete (FOR SHARE; deletePost takes it FOR UPDATE)
 * until the caller's transaction ends.
 */
export async function communitySourceLive(tx: DbOrTx, commentId: string): Promise<boolean> {
  const { rows } = await tx.execute(sql`
    select p.id from community_posts p
      join comments c on c.post_id = p.id
     where c.id::text = ${commentId} and c.deleted_at is null and p.deleted_at is null
       for share of p`);
  return rows.length > 0;
}
