import type { pipelineVerdict } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of the FAQ audit: declared once here, used as route schemas and, through Static, as core types. */

/** The audit's verdicts (a subset of the pipeline_verdict enum, which also holds the auto-answer's). */
export const AUDIT_VERDICTS = [
  'correct',
  'drift_detected',
  'contradiction',
  'stale',
  'skipped',
] as const satisfies readonly (typeof pipelineVerdict.enumValues)[number][];
export const AuditVerdictShape = literals(AUDIT_VERDICTS);
export type AuditVerdict = Static<typeof AuditVerdictShape>;

export const AuditEvidenceShape = T.Object({
  sourceId: T.String(),
  sourceType: T.String(),
  quote: T.String({ description: 'checked to occur verbatim in the source' }),
});
export type AuditEvidence = Static<typeof AuditEvidenceShape>;

export const AuditResultShape = T.Object({
  id: Uuid,
  // The PipelineResult under the spec's field names, then the same facts unpacked for a reader.
  pipeline: T.Literal('faq_audit'),
  targetModel: T.Literal('FAQ'),
  targetId: Uuid,
  targetTitle: T.String(),
  metadata: T.Record(T.String(), T.Unknown(), { description: 'runId, reason, evidence, knowledgeSearch, matchedInsights, error?' }),
  faqId: Uuid,
  question: T.String(),
  batchId: Nullable(Uuid),
  verdict: AuditVerdictShape,
  flagged: T.Boolean(),
  score: Nullable(T.Number()),
  confidence: Nullable(T.Number()),
  reason: Nullable(T.String()),
  sources: T.Array(T.String()),
  evidence: T.Array(AuditEvidenceShape),
  knowledgeSearch: Nullable(T.String()),
  error: Nullable(T.String()),
  runId: Nullable(T.String()),
  checkedAt: DateTime,
});
export type AuditResultItem = Static<typeof AuditResultShape>;

export const AuditStatsShape = T.Object({
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
export type AuditStats = Static<typeof AuditStatsShape>;

export const AuditItemResultShape = T.Object({
  faqId: Uuid,
  question: T.String(),
  batchId: Uuid,
  verdict: AuditVerdictShape,
  flagged: T.Boolean(),
  score: Nullable(T.Number()),
  confidence: Nullable(T.Number()),
  reason: T.String(),
  sources: T.Array(T.String()),
  evidence: T.Array(AuditEvidenceShape),
  knowledgeSearch: T.Union([T.Literal('ok'), T.Literal('failed')]),
  matchedInsights: T.Array(T.String()),
  error: Nullable(T.String()),
  checked: T.Boolean(),
  resultId: Nullable(Uuid),
});
export type AuditItemResult = Static<typeof AuditItemResultShape>;

export const AuditRunResultShape = T.Object({
  runId: T.String(),
  dryRun: T.Boolean(),
  checked: T.Integer(),
  flagged: T.Integer(),
  items: T.Array(AuditItemResultShape),
});
export type AuditRunResult = Static<typeof AuditRunResultShape>;
