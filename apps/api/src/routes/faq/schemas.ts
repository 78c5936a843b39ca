import { FreshnessTierShape as FreshnessTier, ReviewStatusShape as ReviewStatus, ReviewVerdictShape } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { Nullable, PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';

/** The response shapes live in core, next to the domain; route files import them from here or from core. */
export {
  CategoryShape as Category,
  FaqShape as Faq,
  FeedbackResultShape as FeedbackResult,
  FreshnessTierShape as FreshnessTier,
  ReportShape as Report,
  ReviewQueueItemShape as ReviewQueueItem,
  ReviewStatusShape as ReviewStatus,
  RevisionShape as Revision,
  VoteResultShape as VoteResult,
} from '@cfaq/core';

export const ListFaqsQuery = T.Object(
  {
    ...PageQuery.properties,
    batchId: T.Optional(Uuid),
    category: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
    reviewStatus: T.Optional(ReviewStatus),
    freshnessTier: T.Optional(FreshnessTier),
    text: T.Optional(T.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** A FAQ's question and answer; every route that writes FAQ text (promote, convert-to-faq) takes these. */
export const Question = VisibleText(5, 500);
export const Answer = VisibleText(1, 20_000);
const CategorySlug = T.String({ minLength: 1, maxLength: 100 });

export const CreateFaqBody = T.Object(
  {
    question: Question,
    answer: Answer,
    category: T.Optional(Nullable(CategorySlug)),
    freshnessTier: T.Optional(FreshnessTier),
    reviewStatus: T.Optional(T.Union([T.Literal('approved'), T.Literal('draft')])),
    batchId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const UpdateFaqBody = T.Object(
  {
    question: T.Optional(Question),
    answer: T.Optional(Answer),
    category: T.Optional(Nullable(CategorySlug)),
    freshnessTier: T.Optional(FreshnessTier),
    reviewStatus: T.Optional(T.Union([T.Literal('approved'), T.Literal('draft')])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SuggestBody = T.Object(
  {
    question: Question,
    // Optional (a suggestion may come without one), but when given it has a visible character.
    answer: T.Optional(Answer),
    category: T.Optional(CategorySlug),
    batchId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const FeedbackBody = T.Object(
  { helpful: T.Boolean(), comment: T.Optional(T.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

const Reason = VisibleText(3, 2000, { visible: 1 });
export const ReasonBody = T.Object({ reason: Reason }, { additionalProperties: false });

export const VoteBody = T.Object(
  { verdict: ReviewVerdictShape, suggestion: T.Optional(T.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
export const BatchPageQuery = T.Object({ ...PageQuery.properties, batchId: T.Optional(Uuid) }, { additionalProperties: false });
