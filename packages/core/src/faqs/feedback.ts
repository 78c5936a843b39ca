import { faqFeedback, faqs } from '@cfaq/db/schema/index';
import { eq, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { reputationOnFeedback } from '../reputation/events.js';
import type { Actor, Tx } from '../shared/db.js';
import { visibleFaq } from './service.js';
import type { FeedbackResult } from './shape.js';

/** The FAQ's feedback counters, recomputed from its faq_feedback rows (so they always match them). */
async function recountFeedback(tx: Tx, faqId: string) {
  const [counts] = await tx
    .update(faqs)
    .set({
      helpfulCount: sql`(select count(*) from ${faqFeedback} f where f.faq_id = ${faqId} and f.helpful)`,
      notHelpfulCount: sql`(select count(*) from ${faqFeedback} f where f.faq_id = ${faqId} and not f.helpful)`,
    })
    .where(eq(faqs.id, faqId))
    .returning({ helpfulCount: faqs.helpfulCount, notHelpfulCount: faqs.notHelpfulCount });
  return counts;
}

/**
 * One feedback per user per FAQ (upsert). The FAQ row is locked and its counters recomputed from
 * faq_feedback in the same transaction, so they always match the rows, also under concurrent calls.
 */
export async function giveFeedback(
  ctx: Pick<CoreContext, 'db' | 'clock'>,
  actor: Actor,
  id: string,
  input: { helpful: boolean; comment?: string | undefined },
): Promise<FeedbackResult> {
  return ctx.db.transaction(async (tx) => {
    await visibleFaq(tx, actor, id, { forUpdate: true });
    const now = ctx.clock.now();
    await tx
      .insert(faqFeedback)
      .values({ faqId: id, userId: actor.id, helpful: input.helpful, comment: input.comment ?? null, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [faqFeedback.faqId, faqFeedback.userId],
        set: { helpful: input.helpful, comment: input.comment ?? null, updatedAt: now },
      });
    const counts = await recountFeedback(tx, id);
    await reputationOnFeedback(tx, id, actor.id, input.helpful);
    return { faqId: id, helpful: input.helpful, helpfulCount: counts?.helpfulCount ?? 0, notHelpfulCount: counts?.notHelpfulCount ?? 0 };
  });
}

/**
 * Withdraws every feedback of a user about to be deleted: the FAQs' counters are recomputed without
 * it and the points a helpful one earned are reversed (the rows would go with the user, the counters
 * and points would not).
 */
export async function withdrawFeedbackOf(tx: Tx, userId: string): Promise<void> {
  const gone = await tx.execute<{ faq_id: string; helpful: boolean }>(
    sql`delete from ${faqFeedback} where user_id = ${userId} returning faq_id, helpful`,
  );
  for (const f of gone.rows) {
    await recountFeedback(tx, f.faq_id);
    if (f.helpful) await reputationOnFeedback(tx, f.faq_id, userId, false);
  }
}
