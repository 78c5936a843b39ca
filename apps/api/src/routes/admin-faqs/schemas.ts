import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';
import { Faq } from '../faq/schemas.js';

const Tally = T.Object({ stillAccurate: T.Integer(), needsUpdate: T.Integer() });
const Suggestion = T.Object({
  voterId: Nullable(Uuid),
  voterName: Nullable(T.String()),
  verdict: T.Union([T.Literal('still_accurate'), T.Literal('needs_update')]),
  suggestion: T.String(),
  createdAt: DateTime,
});
export const LatestAudit = T.Object({
  id: Uuid,
  verdict: T.String(),
  score: Nullable(T.Number()),
  confidence: Nullable(T.Number()),
  flagged: T.Boolean(),
  reason: Nullable(T.String()),
  sources: T.Array(T.String()),
  checkedAt: DateTime,
});

export const StaffReviewItem = T.Composite([
  Faq,
  T.Object({
    tally: Tally,
    suggestions: T.Array(Suggestion, { description: "the voters' suggestions of the current review cycle, oldest first" }),
    latestAudit: Nullable(LatestAudit),
  }),
]);

const FlagType = T.Union([T.Literal('manual'), T.Literal('auto')]);

export const EscalatedQuery = T.Object(
  { ...PageQuery.properties, batchId: T.Optional(Uuid), flagType: T.Optional(FlagType) },
  { additionalProperties: false },
);
export const ReviewQueueQuery = T.Object(
  {
    ...PageQuery.properties,
    batchId: T.Optional(Uuid),
    flagType: T.Optional(FlagType),
    reviewStatus: T.Optional(T.Union([T.Literal('pending_review'), T.Literal('update_requested')])),
  },
  { additionalProperties: false },
);

export const DismissBody = T.Object(
  { reason: T.String({ minLength: 3, maxLength: 2000, pattern: '\\S', description: 'written to the admin log' }) },
  { additionalProperties: false },
);
export const ObjectBody = T.Object(
  { reason: T.String({ minLength: 3, maxLength: 2000, pattern: '\\S', description: 'written to the admin log' }) },
  { additionalProperties: false },
);

export const CommunityPendingQuery = T.Object(
  {
    ...PageQuery.properties,
    batchId: T.Optional(Uuid),
    status: T.Optional(
      T.Union([T.Literal('community_pending'), T.Literal('objected'), T.Literal('all')], {
        default: 'community_pending',
        description: 'community_pending (default), objected, or all of both',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CommunityPendingItem = T.Composite([
  Faq,
  T.Object({
    promotionStatus: Nullable(T.Union([T.Literal('community_pending'), T.Literal('promoted'), T.Literal('objected')])),
    promotionEligibleAt: Nullable(DateTime),
    objectionCount: T.Integer(),
    support: Nullable(T.Integer({ description: 'net votes of the source post; null for suggestions' })),
    autoPromotable: T.Boolean({ description: 'whether the next promotion cycle would approve it' }),
    lastObjection: Nullable(T.Object({ reason: Nullable(T.String()), actorId: Nullable(Uuid), createdAt: DateTime })),
  }),
]);
