import { PeriodShape as Period } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { BatchQuery, PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';

export {
  BadgeShape as Badge,
  LeaderboardEntryShape as LeaderboardEntry,
  LeaderboardShape as Leaderboard,
  PeriodShape as Period,
  ReputationLogShape as ReputationLog,
  ReputationSummaryShape as ReputationSummary,
} from '@cfaq/core';

export const LeaderboardQuery = T.Composite([PageQuery, BatchQuery, T.Object({ period: T.Optional(Period) })], {
  additionalProperties: false,
});

export const ProgramQuery = T.Composite([BatchQuery], { additionalProperties: false });
export const HistoryQuery = T.Composite([PageQuery, BatchQuery], { additionalProperties: false });
export const UserIdParams = T.Object({ userId: Uuid });

const Reason = VisibleText(1, 500);

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
