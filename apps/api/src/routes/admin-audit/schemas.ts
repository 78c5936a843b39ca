import { AuditVerdictShape as Verdict } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { PageQuery, TimeBoundInput, Uuid } from '../../lib/schemas.js';

export {
  AuditItemResultShape as RunItem,
  AuditResultShape as AuditResult,
  AuditRunResultShape as RunResult,
  AuditStatsShape as Stats,
} from '@cfaq/core';

const Range = {
  from: T.Optional(T.String({ ...TimeBoundInput, description: `checkedAt from (inclusive): ${TimeBoundInput.description}` })),
  to: T.Optional(
    T.String({ ...TimeBoundInput, description: `checkedAt to (inclusive; a day up to its end): ${TimeBoundInput.description}` }),
  ),
  batchId: T.Optional(Uuid),
};

export const ResultsQuery = T.Object(
  {
    ...PageQuery.properties,
    ...Range,
    verdict: T.Optional(Verdict),
    flagged: T.Optional(T.Boolean()),
    faqId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);
export const StatsQuery = T.Object(Range, { additionalProperties: false });

export const RunQuery = T.Object(
  {
    dry_run: T.Optional(T.Boolean({ description: 'true: compute and return the verdicts, write nothing' })),
    faq_id: T.Optional(Uuid),
  },
  { additionalProperties: false },
);
