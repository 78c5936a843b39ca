import { comments, communityPosts } from '@cfaq/db/schema/index';
import { and, desc, eq, isNull, or } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, conflict, forbidden, unprocessable } from '../errors/index.js';
import { insertFaq } from '../faqs/service.js';
import type { FreshnessTier } from '../faqs/shape.js';
import { toFaqView } from '../faqs/view.js';
import { lockProgramForWrite } from '../programs/lock.js';
import { reputationOnConvert } from '../reputation/events.js';
import { type Actor, isStaff } from '../shared/db.js';
import { getPost } from './posts.js';
import type { ConvertResult } from './shape.js';
import { visiblePost } from './view.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'config' | 'jobs'>;

export interface ConvertInput {
  /** The FAQ's answer; else the accepted comment, else the latest verified comment, else an approved AI answer. */
  answer?: string | undefined;
  /** Defaults to the post title. */
  question?: string | undefined;
  category?: string | undefined;
  freshnessTier?: FreshnessTier | undefined;
}

/**
 * Staff turn a post into an approved FAQ in the post's program (source community_post, sourceId =
 * post id) and link it from the post (convertedFaqId). A post converts once (409 after).
 */
export async function convertPostToFaq(ctx: Ctx, actor: Actor, postId: string, input: ConvertInput): Promise<ConvertResult> {
  if (!isStaff(actor)) throw forbidden();
  return ctx.db.transaction(async (tx) => {
    const post = await visiblePost(tx, actor, postId, { forUpdate: true });
    if (post.convertedFaqId) throw conflict(Code.POST_ALREADY_CONVERTED, 'This post was already converted to a FAQ');
    let answer = input.answer;
    if (!answer) {
      const [best] = await tx
        .select({ body: comments.body })
        .from(comments)
        .where(
          and(eq(comments.postId, postId), isNull(comments.deletedAt), or(eq(comments.isAccepted, true), eq(comments.isVerified, true))),
        )
        .orderBy(desc(comments.isAccepted), desc(comments.verifiedAt))
        .limit(1);
      answer = best?.body ?? (post.aiAnswerStatus === 'approved' ? (post.aiAnswer ?? undefined) : undefined);
    }
    if (!answer) throw unprocessable(Code.NO_ANSWER, 'The post has no accepted or verified answer; give one in `answer`');
    // Locked until commit: a program delete racing the conversion waits for it, or makes it a 404.
    const batchId = await lockProgramForWrite(tx, post.batchId, { allowArchived: true });
    const row = await insertFaq(
      ctx,
      tx,
      {
        batchId,
        question: input.question ?? post.title,
        answer,
        category: input.category ?? null,
        ...(input.freshnessTier ? { freshnessTier: input.freshnessTier } : {}),
        reviewStatus: 'approved',
        source: 'community_post',
        sourceId: postId,
      },
      actor.id,
    );
    await tx.update(communityPosts).set({ convertedFaqId: row.id, updatedAt: ctx.clock.now() }).where(eq(communityPosts.id, postId));
    await reputationOnConvert(tx, postId, actor.id);
    // The post read before commit: after it, the program's delete could already hide it.
    return { faq: toFaqView(row, actor), post: await getPost({ db: tx }, actor, postId) };
  });
}
