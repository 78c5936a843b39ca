import { Type as T } from '@sinclair/typebox';
import { BatchQuery, DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

export const Period = T.Union([T.Literal('week'), T.Literal('month'), T.Literal('all')], {
  default: 'all',
  description: 'week: the UTC calendar week from Monday; month: the UTC calendar month; all: all time',
});

export const LeaderboardQuery = T.Composite([PageQuery, BatchQuery, T.Object({ period: T.Optional(Period) })], {
  additionalProperties: false,
});

export const LeaderboardEntry = T.Object({
  rank: T.Integer({ description: 'users with more points + 1 (ties share a rank)' }),
  userId: Uuid,
  name: T.String(),
  avatarUrl: Nullable(T.String()),
  points: T.Integer(),
});

export const Leaderboard = T.Object({
  items: T.Array(LeaderboardEntry),
  total: T.Integer(),
  page: T.Integer(),
  limit: T.Integer(),
  period: Period,
  periodStart: T.String({ format: 'date', description: 'first day of the period (1970-01-01 for all)' }),
});

export const Badge = T.Object({
  id: Uuid,
  name: T.String(),
  reason: Nullable(T.String()),
  awardedAt: DateTime,
  awardedBy: Nullable(Uuid),
});

export const ReputationSummary = T.Object({
  userId: Uuid,
  name: T.String(),
  batchId: Uuid,
  points: T.Integer({ description: 'all-time points in the program' }),
  weekPoints: T.Integer(),
  monthPoints: T.Integer(),
  rank: Nullable(T.Integer({ description: 'all-time rank in the program; null without positive points' })),
  totalReputation: T.Integer({ description: 'points across all programs' }),
  badges: T.Array(Badge, { description: 'badges held now in the program' }),
});

export const ReputationLog = T.Object({
  id: Uuid,
  batchId: Nullable(Uuid),
  points: T.Integer(),
  reason: T.String(),
  sourceType: Nullable(T.String()),
  sourceId: Nullable(Uuid),
  reversesId: Nullable(Uuid),
  reversed: T.Boolean(),
  createdAt: DateTime,
});

export const ProgramQuery = T.Composite([BatchQuery], { additionalProperties: false });
export const HistoryQuery = T.Composite([PageQuery, BatchQuery], { additionalProperties: false });
export const UserIdParams = T.Object({ userId: Uuid });

const Reason = T.String({ minLength: 1, maxLength: 500, pattern: '\\S' });

export const PointsBody = T.Object(
  {
    userId: Uuid,
    points: T.Integer({ minimum: -10000, maximum: 10000, not: { const: 0 }, description: 'non-zero; negative deducts' }),
    reason: Reason,
    batchId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const BadgeBody = T.Object(
  {
    userId: Uuid,
    name: T.String({ minLength: 2, maxLength: 50, pattern: '^[a-z0-9][a-z0-9_-]*$', description: 'lower-case badge name' }),
    reason: Reason,
    batchId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);
