import { type Static, Type as T } from '@sinclair/typebox';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';
import { PERIODS } from './points.js';

/** The response shapes of reputation: declared once here, used as route schemas and, through Static, as core types. */

export const PeriodShape = literals(PERIODS, {
  default: 'all',
  description: 'week: the UTC calendar week from Monday; month: the UTC calendar month; all: all time',
});

export const LeaderboardEntryShape = T.Object({
  rank: T.Integer({ description: 'users with more points + 1 (ties share a rank)' }),
  userId: Uuid,
  name: T.String(),
  avatarUrl: Nullable(T.String()),
  points: T.Integer(),
});
export type LeaderboardEntry = Static<typeof LeaderboardEntryShape>;

export const LeaderboardShape = T.Object({
  items: T.Array(LeaderboardEntryShape),
  total: T.Integer(),
  page: T.Integer(),
  limit: T.Integer(),
  period: PeriodShape,
  periodStart: T.String({ format: 'date', description: 'first day of the period (1970-01-01 for all)' }),
});
export type Leaderboard = Static<typeof LeaderboardShape>;

export const BadgeShape = T.Object({
  id: Uuid,
  name: T.String(),
  reason: Nullable(T.String()),
  awardedAt: DateTime,
  awardedBy: Nullable(Uuid),
});
export type BadgeView = Static<typeof BadgeShape>;

export const ReputationSummaryShape = T.Object({
  userId: Uuid,
  name: T.String(),
  batchId: Uuid,
  points: T.Integer({ description: 'all-time points in the program' }),
  weekPoints: T.Integer(),
  monthPoints: T.Integer(),
  rank: Nullable(T.Integer({ description: 'all-time rank in the program; null without positive points' })),
  totalReputation: T.Integer({ description: 'points across all programs' }),
  badges: T.Array(BadgeShape, { description: 'badges held now in the program' }),
});
export type ReputationSummary = Static<typeof ReputationSummaryShape>;

export const ReputationLogShape = T.Object({
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
export type ReputationLogView = Static<typeof ReputationLogShape>;
