import { AuditVerdictShape as Verdict } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { DateTimeInput, PageQuery, Uuid } from '../../lib/schemas.js';

export {
  AuditItemResultShape as RunItem,
  AuditResultShape as AuditResult,
  AuditRunResultShape as RunResult,
  AuditStatsShape as Stats,
} from '@cfaq/core';

const Range = {
  from: T.Optional(T.String({ ...DateTimeInput, description: 'checkedAt from (inclusive), year 1900 to 2999' })),
  to: T.Optional(T.String({ ...DateTimeInput, description: 'checkedAt to (inclusive), year 1900 to 2999' })),
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
