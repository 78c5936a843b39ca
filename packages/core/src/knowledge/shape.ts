import { knowledgeStatus } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { FaqShape } from '../faqs/shape.js';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';
import { FAQ_UPDATE_THRESHOLD } from './faq-match.js';

/** The response shapes of the knowledge base (items, searches, chat, promotion): declared once here. */

/** What converting an insight or promoting a knowledge item did to the FAQs. */
export const FaqActionShape = T.Union([T.Literal('created'), T.Literal('updated')], {
  description: 'created: a new FAQ; updated: the existing FAQ it matched (or faqId) took its content',
});
export type FaqAction = Static<typeof FaqActionShape>;

export const KnowledgeTypeShape = T.Union([T.Literal('transcript'), T.Literal('document')]);
export type KnowledgeType = Static<typeof KnowledgeTypeShape>;
export const KnowledgeStatusShape = literals(knowledgeStatus.enumValues);
export type KnowledgeStatus = Static<typeof KnowledgeStatusShape>;

export const KnowledgeItemShape = T.Object({
  id: Uuid,
  type: KnowledgeTypeShape,
  title: T.String(),
  content: T.String(),
  status: KnowledgeStatusShape,
  batchId: Nullable(Uuid),
  meetingId: Nullable(Uuid),
  sourceType: T.String(),
  sourceRef: Nullable(T.String()),
  promotedFaqId: Nullable(Uuid),
  proposedFaqId: T.Union([Uuid, T.Null()], {
    description: `"update FAQ X": an existing FAQ of the program this item matches closely (its title as a question, as the duplicate check would match it: vectorScore >= ${FAQ_UPDATE_THRESHOLD} with a margin over the next FAQ, or the same question word for word); promote updates it by default. Null: promote creates a new FAQ`,
  }),
  proposedFaqScore: Nullable(T.Number({ description: 'the similarity to proposedFaqId' })),
  embedded: T.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type KnowledgeItem = Static<typeof KnowledgeItemShape>;
export const KnowledgeItemsShape = T.Object({ items: T.Array(KnowledgeItemShape) });
export const UpvoteKnowledgeShape = T.Object({ created: T.Integer(), items: T.Array(KnowledgeItemShape) });
export type UpvoteKnowledge = Static<typeof UpvoteKnowledgeShape>;

export const KnowledgeSourceTypeShape = T.Union([T.Literal('transcript_knowledge'), T.Literal('document_insight')]);
export type KnowledgeSourceType = Static<typeof KnowledgeSourceTypeShape>;
export const KnowledgeHitShape = T.Object({
  id: Uuid,
  sourceType: KnowledgeSourceTypeShape,
  title: T.String(),
  content: T.String(),
  score: T.Number(),
  meetingId: Nullable(Uuid),
});
export type KnowledgeHit = Static<typeof KnowledgeHitShape>;
export const KnowledgeHitsShape = T.Object({ results: T.Array(KnowledgeHitShape) });

export const ChatAnswerShape = T.Object({
  answered: T.Boolean(),
  answer: T.String(),
  sources: T.Array(T.Object({ id: Uuid, type: KnowledgeTypeShape, title: T.String(), score: T.Number() })),
  reason: T.Optional(T.String()),
});
export type ChatAnswer = Static<typeof ChatAnswerShape>;
export const PostChatAnswerShape = T.Composite([ChatAnswerShape, T.Object({ postId: Uuid })]);
export type PostChatAnswer = Static<typeof PostChatAnswerShape>;

export const PromoteKnowledgeShape = T.Object({ faq: FaqShape, item: KnowledgeItemShape, action: FaqActionShape });
export type PromoteKnowledge = Static<typeof PromoteKnowledgeShape>;
