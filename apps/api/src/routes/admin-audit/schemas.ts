import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

const Verdict = T.Union([
  T.Literal('correct'),
  T.Literal('drift_detected'),
  T.Literal('contradiction'),
  T.Literal('stale'),
  T.Literal('skipped'),
]);
const Evidence = T.Object({
  sourceId: T.String(),
  sourceType: T.String(),
  quote: T.String({ description: 'checked to occur verbatim in the source' }),
});

export const AuditResult = T.Object({
  id: Uuid,
  faqId: Uuid,
  question: T.String(),
  batchId: Nullable(Uuid),
  verdict: T.String(),
  flagged: T.Boolean(),
  score: Nullable(T.Number()),
  confidence: Nullable(T.Number()),
  reason: Nullable(T.String()),
  sources: T.Array(T.String()),
  evidence: T.Array(Evidence),
  knowledgeSearch: Nullable(T.String()),
  error: Nullable(T.String()),
  runId: Nullable(T.String()),
  checkedAt: DateTime,
});

const Range = {
  from: T.Optional(T.String({ format: 'date-time', description: 'checkedAt from (inclusive)' })),
  to: T.Optional(T.String({ format: 'date-time', description: 'checkedAt to (inclusive)' })),
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

export const Stats = T.Object({
  total: T.Integer(),
  flagged: T.Integer(),
  byVerdict: T.Object({
    correct: T.Integer(),
    drift_detected: T.Integer(),
    contradiction: T.Integer(),
    stale: T.Integer(),
    skipped: T.Integer(),
  }),
  openFlags: T.Integer({ description: 'FAQs still pending review or escalated on an AI audit flag' }),
  lastRun: Nullable(T.Object({ runId: Nullable(T.String()), at: DateTime, checked: T.Integer(), flagged: T.Integer() })),
});

export const RunQuery = T.Object(
  {
    dry_run: T.Optional(T.Boolean({ description: 'true: compute and return the verdicts, write nothing' })),
    faq_id: T.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const RunItem = T.Object({
  faqId: Uuid,
  question: T.String(),
  batchId: Uuid,
  verdict: Verdict,
  flagged: T.Boolean(),
  score: Nullable(T.Number()),
  confidence: Nullable(T.Number()),
  reason: T.String(),
  sources: T.Array(T.String()),
  evidence: T.Array(Evidence),
  knowledgeSearch: T.Union([T.Literal('ok'), T.Literal('failed')]),
  matchedInsights: T.Array(T.String()),
  error: Nullable(T.String()),
  checked: T.Boolean(),
  resultId: Nullable(Uuid),
});
export const RunResult = T.Object({
  runId: T.String(),
  dryRun: T.Boolean(),
  checked: T.Integer(),
  flagged: T.Integer(),
  items: T.Array(RunItem),
});
