import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

export const ReviewStatus = T.Union([
  T.Literal('approved'),
  T.Literal('pending_review'),
  T.Literal('draft'),
  T.Literal('verified'),
  T.Literal('update_requested'),
]);
export const FreshnessTier = T.Union([T.Literal('evergreen'), T.Literal('seasonal'), T.Literal('volatile')]);
const Verdict = T.Union([T.Literal('still_accurate'), T.Literal('needs_update')]);

export const Faq = T.Object({
  id: Uuid,
  batchId: Uuid,
  question: T.String(),
  answer: T.String(),
  category: Nullable(T.String()),
  reviewStatus: ReviewStatus,
  flagType: Nullable(T.Union([T.Literal('manual'), T.Literal('auto')])),
  flagReason: Nullable(T.String({ description: 'moderation text: staff only, null for everyone else' })),
  lastCheckedAt: Nullable(DateTime),
  reviewCycle: T.Integer(),
  freshnessTier: FreshnessTier,
  lastVerifiedDate: DateTime,
  reviewIntervalDays: T.Integer({
    description:
      'days between freshness reviews: seasonal and volatile from the settings, evergreen 365 (evergreen FAQs are never auto-flagged)',
  }),
  flaggedAt: Nullable(DateTime),
  escalatedAt: Nullable(DateTime),
  source: T.String(),
  sourceId: Nullable(Uuid),
  helpfulCount: T.Integer(),
  notHelpfulCount: T.Integer(),
  viewCount: T.Integer(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

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

export const Category = T.Object({
  id: Uuid,
  batchId: Uuid,
  name: T.String(),
  slug: T.String(),
  description: Nullable(T.String()),
  sortOrder: T.Integer(),
});

const Question = T.String({ minLength: 5, maxLength: 500, pattern: '\\S' });
const Answer = T.String({ minLength: 1, maxLength: 20_000, pattern: '\\S' });
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
    answer: T.Optional(T.String({ maxLength: 20_000 })),
    category: T.Optional(CategorySlug),
    batchId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const FeedbackBody = T.Object(
  { helpful: T.Boolean(), comment: T.Optional(T.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
export const FeedbackResult = T.Object({ faqId: Uuid, helpful: T.Boolean(), helpfulCount: T.Integer(), notHelpfulCount: T.Integer() });

const Reason = T.String({ minLength: 3, maxLength: 2000, pattern: '\\S' });
export const ReasonBody = T.Object({ reason: Reason }, { additionalProperties: false });

export const Report = T.Object({
  id: Uuid,
  faqId: Uuid,
  reporterId: Nullable(Uuid),
  reason: T.String(),
  status: T.String(),
  createdAt: DateTime,
});

export const Revision = T.Object({
  id: Uuid,
  faqId: Uuid,
  editorId: Nullable(Uuid),
  editorName: Nullable(T.String()),
  changes: T.Record(T.String(), T.Object({ from: T.Unknown(), to: T.Unknown() })),
  createdAt: DateTime,
});

export const VoteBody = T.Object(
  { verdict: Verdict, suggestion: T.Optional(T.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
const Tally = T.Object({ stillAccurate: T.Integer(), needsUpdate: T.Integer() });
export const VoteResult = T.Object({ faqId: Uuid, cycle: T.Integer(), reviewStatus: ReviewStatus, tally: Tally, myVote: Verdict });

export const ReviewQueueItem = T.Composite([Faq, T.Object({ tally: Tally, myVote: Nullable(Verdict) })]);
export const BatchPageQuery = T.Object({ ...PageQuery.properties, batchId: T.Optional(Uuid) }, { additionalProperties: false });
