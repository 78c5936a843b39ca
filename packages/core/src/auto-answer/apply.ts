import { aiAnswerOutcomes, communityPosts, pipelineResults } from '@cfaq/db/schema/index';
import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { aiAnsweredEvent } from './answered-event.js';
import type { Decision } from './decide.js';

export type AppliedOutcome = 'written' | 'skipped';

/**
 * Writes one decision in one short transaction: the post fields (conditional on the post still
 * being open, still eligible and still claimed by this run, so an edit, an answer or another run in
 * between wins), a PipelineResult (flagged unless approved), and on approval the author's
 * notification and tea drop plus an ai_answer_outcomes row for calibration.
 */
export async function applyDecision(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'log'>,
  d: Decision,
  runId: string,
  authorId: string | null,
  trigger: string,
): Promise<AppliedOutcome> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const common = {
      aiAnswerConfidence: d.confidence,
      aiAnswerSource: d.source,
      aiAnswerSources: d.sources,
      lastCheckedAt: now,
      aiAnswerClaim: null,
      // A new answer of the pipeline's own: an earlier admin review (an escalate) was of the old one,
      // and left set it would count this answer as admin-reviewed (analytics' approval rate).
      aiAnswerReviewedAt: null,
      aiAnswerReviewedBy: null,
      updatedAt: now,
    };
    const set =
      d.verdict === 'approved'
        ? {
            ...common,
            aiAnswer: d.answer,
            aiAnswerStatus: 'approved' as const,
            aiAnswerSuggestedAt: now,
            aiAnswerEscalatedReason: null,
            aiAnswerScore: 0,
            aiAnswerNotHelpfulAt: null,
            status: 'answered' as const,
            answeredAt: now,
          }
        : d.verdict === 'suggested'
          ? {
              ...common,
              aiAnswer: d.answer,
              aiAnswerStatus: 'suggested' as const,
              aiAnswerSuggestedAt: now,
              aiAnswerEscalatedReason: d.reason,
            }
          : {
              ...common,
              aiAnswer: d.answer,
              aiAnswerStatus: 'escalated' as const,
              aiAnswerEscalatedAt: now,
              aiAnswerEscalatedReason: d.reason,
            };
    const [row] = await tx
      .update(communityPosts)
      .set(set)
      .where(
        and(
          eq(communityPosts.id, d.postId),
          eq(communityPosts.aiAnswerClaim, runId),
          eq(communityPosts.status, 'open'),
          isNull(communityPosts.deletedAt),
          or(isNull(communityPosts.aiAnswerStatus), inArray(communityPosts.aiAnswerStatus, ['escalated'])),
        ),
      )
      .returning({ id: communityPosts.id });
    if (!row) {
      await tx
        .update(communityPosts)
        .set({ aiAnswerClaim: null })
        .where(and(eq(communityPosts.id, d.postId), eq(communityPosts.aiAnswerClaim, runId)));
      return 'skipped';
    }
    await tx.insert(pipelineResults).values({
      pipeline: 'auto_answer',
      targetModel: 'CommunityPost',
      targetId: d.postId,
      targetTitle: d.title,
      batchId: d.batchId,
      score: d.score,
      confidence: d.confidence,
      verdict: d.verdict,
      flagged: d.verdict !== 'approved',
      sources: d.sources,
      metadata: { ...d.metadata, source: d.source, reason: d.reason, trigger, runId },
      checkedAt: now,
    });
    if (d.verdict === 'approved') {
      await tx
        .insert(aiAnswerOutcomes)
        .values({ postId: d.postId, batchId: d.batchId, confidence: d.confidence, publishedBy: 'auto', publishedAt: now });
      await aiAnsweredEvent(tx, { authorId, postId: d.postId, batchId: d.batchId, title: d.title, data: { by: 'ai', source: d.source } });
    }
    return 'written';
  });
}
