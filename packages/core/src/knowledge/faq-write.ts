import type { CoreContext } from '../context.js';
import { appError, Code, unprocessable } from '../errors/index.js';
import { insertFaq, updateFaqInTx, visibleFaq } from '../faqs/service.js';
import type { FreshnessTier } from '../faqs/shape.js';
import type { FaqRow } from '../faqs/view.js';
import type { Actor, Tx } from '../shared/db.js';

import type { FaqAction } from './shape.js';

export interface FaqFromKnowledge {
  /** The FAQ to update (the proposal, or the caller's choice); null: create one. */
  target: string | null;
  batchId: string;
  /** The question the caller gave; on an update the FAQ keeps its own question without one. */
  question: string | undefined;
  /** The question of a new FAQ when the caller gave none (the insight's question, the item's title). */
  newQuestion: string;
  answer: string;
  category: string | undefined;
  freshnessTier?: FreshnessTier | undefined;
  source: 'conf_insight' | 'transcript_knowledge' | 'manual';
  sourceId: string;
}

/** POST /faq's question bounds (apps/api/src/routes/faq/schemas.ts), for a question not given by the caller. */
const FAQ_QUESTION_MIN = 5;
const FAQ_QUESTION_MAX = 500;

const badDefault = (field: 'question' | 'answer', message: string) =>
  appError(422, Code.FAQ_TEXT_INVALID, `body.${field}: ${message}`, [{ path: `body.${field}`, message }]);

/**
 * Writes an insight's or knowledge item's content as FAQ content inside the caller's transaction:
 * updates the target FAQ (an ordinary staff edit: a revision, re-embedding) or creates an approved FAQ
 * linked to its source. A target in another program is refused (422): a proposal never crosses programs.
 */
export async function writeFaqFromKnowledge(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'config' | 'jobs'>,
  tx: Tx,
  actor: Actor,
  w: FaqFromKnowledge,
): Promise<{ faq: FaqRow; action: FaqAction }> {
  // The route schemas hold a given question and answer to POST /faq's rules; a default taken from the
  // source (an item's title, an insight's question or content) is checked here, so promoting never
  // publishes a FAQ that POST /faq would refuse (a blank, 2-character or 1,000-character question).
  const newQuestion = w.question === undefined && !w.target ? w.newQuestion.trim() : undefined;
  if (newQuestion !== undefined && (newQuestion.length < FAQ_QUESTION_MIN || newQuestion.length > FAQ_QUESTION_MAX))
    throw badDefault(
      'question',
      `the default question (${w.source === 'conf_insight' ? "the insight's question" : "the item's title"}) has ${newQuestion.length} characters; a FAQ question needs ${FAQ_QUESTION_MIN}-${FAQ_QUESTION_MAX}: send question`,
    );
  if (!w.answer.trim()) throw badDefault('answer', 'the default answer is blank: send answer');
  if (w.target) {
    const current = await visibleFaq(tx, actor, w.target, { forUpdate: true });
    if (current.batchId !== w.batchId) throw unprocessable(Code.FAQ_OTHER_PROGRAM, 'The FAQ to update belongs to another program');
    const faq = await updateFaqInTx(ctx, tx, actor, w.target, {
      answer: w.answer,
      ...(w.question !== undefined ? { question: w.question } : {}),
      ...(w.category !== undefined ? { category: w.category } : {}),
      ...(w.freshnessTier !== undefined ? { freshnessTier: w.freshnessTier } : {}),
    });
    return { faq, action: 'updated' };
  }
  const faq = await insertFaq(
    ctx,
    tx,
    {
      batchId: w.batchId,
      question: w.question ?? (newQuestion as string),
      answer: w.answer,
      category: w.category ?? null,
      ...(w.freshnessTier ? { freshnessTier: w.freshnessTier } : {}),
      reviewStatus: 'approved',
      source: w.source,
      sourceId: w.sourceId,
    },
    actor.id,
  );
  return { faq, action: 'created' };
}
