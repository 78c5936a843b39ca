import { type Static, Type as T } from '@sinclair/typebox';
import { AiAnswerSourceShape, AiAnswerStatusShape, EscalationStatusShape, PostStatusShape } from '../community/shape.js';
import { DateTime, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of auto-answer (admin queue, review, run, calibration; AI answer feedback): declared once here. */

export const AutoAnswerVerdictShape = T.Union([T.Literal('approved'), T.Literal('suggested'), T.Literal('escalated')]);
export type AutoAnswerVerdict = Static<typeof AutoAnswerVerdictShape>;

export const ReviewQueueEntryShape = T.Object({
  id: Uuid,
  postId: Uuid,
  batchId: Nullable(Uuid),
  title: T.String(),
  body: T.String(),
  authorId: Nullable(Uuid),
  status: PostStatusShape,
  aiAnswerStatus: AiAnswerStatusShape,
  answer: Nullable(T.String()),
  confidence: Nullable(T.Number()),
  source: AiAnswerSourceShape,
  sources: T.Array(T.String()),
  reason: Nullable(T.String()),
  attempts: T.Integer(),
  suggestedAt: Nullable(DateTime),
  // The post's own fields under the spec's CommunityPost names (the short ones above are the issue's).
  aiAnswer: Nullable(T.String()),
  aiAnswerConfidence: Nullable(T.Number()),
  aiAnswerSource: AiAnswerSourceShape,
  aiAnswerSuggestedAt: Nullable(DateTime),
  aiAnswerReviewedAt: Nullable(DateTime),
  aiAnswerReviewedBy: Nullable(Uuid),
  aiAnswerEscalatedAt: Nullable(DateTime),
  aiAnswerEscalatedReason: Nullable(T.String()),
  aiAnswerAttempts: T.Integer(),
  escalationStatus: T.Union(EscalationStatusShape.anyOf, { description: 'the post escalation, not the AI answer' }),
  // The post escalation's time (spec CommunityPost.escalatedAt); the AI answer's is aiAnswerEscalatedAt.
  escalatedAt: Nullable(DateTime),
  lastCheckedAt: Nullable(DateTime),
  createdAt: DateTime,
});
export type QueueItem = Static<typeof ReviewQueueEntryShape>;

export const RunItemShape = T.Object({
  postId: Uuid,
  title: T.String(),
  batchId: Uuid,
  verdict: AutoAnswerVerdictShape,
  confidence: Nullable(T.Number()),
  source: AiAnswerSourceShape,
  sources: T.Array(T.String()),
  answer: Nullable(T.String()),
  reason: Nullable(T.String()),
  provider: Nullable(T.String()),
  model: Nullable(T.String()),
  /** written: stored; skipped: the post changed meanwhile; dry_run: nothing stored; error: the step threw. */
  outcome: T.Union([T.Literal('written'), T.Literal('skipped'), T.Literal('dry_run'), T.Literal('error')]),
});
export type RunItem = Static<typeof RunItemShape>;

export const ThresholdsShape = T.Object({ approve: T.Number(), suggest: T.Number() });
export type Thresholds = Static<typeof ThresholdsShape>;

export const WhatIfShape = T.Object({
  thresholds: ThresholdsShape,
  evaluated: T.Integer(),
  changed: T.Integer(),
  transitions: T.Array(T.Object({ from: AutoAnswerVerdictShape, to: AutoAnswerVerdictShape, count: T.Integer() })),
});
export type WhatIfReport = Static<typeof WhatIfShape>;

/** The route's answer: the run, with the threshold what-if when a dry run asked for other thresholds. */
export const RunReportShape = T.Object({
  runId: Uuid,
  dryRun: T.Boolean(),
  thresholds: ThresholdsShape,
  processed: T.Integer(),
  counts: T.Object({ approved: T.Integer(), suggested: T.Integer(), escalated: T.Integer(), skipped: T.Integer(), errors: T.Integer() }),
  items: T.Array(RunItemShape),
  durationMs: T.Integer(),
  whatIf: T.Optional(WhatIfShape),
});
export type RunReport = Static<typeof RunReportShape>;

/** The trigger's answer when it enqueued a worker run (202). */
export const AutoAnswerQueuedShape = T.Object({
  queued: T.Literal(true),
  jobId: Nullable(T.String()),
  all: T.Boolean(),
  batchId: Nullable(Uuid),
});
export type AutoAnswerQueued = Static<typeof AutoAnswerQueuedShape>;

export const AiReviewResultShape = T.Object({
  postId: Uuid,
  action: T.String(),
  previousStatus: AiAnswerStatusShape,
  aiAnswerStatus: AiAnswerStatusShape,
  aiAnswer: Nullable(T.String()),
  aiAnswerSource: AiAnswerSourceShape,
  aiAnswerConfidence: Nullable(T.Number()),
  status: PostStatusShape,
  aiAnswerEscalatedAt: Nullable(DateTime),
  aiAnswerEscalatedReason: Nullable(T.String()),
  aiAnswerReviewedAt: DateTime,
  aiAnswerReviewedBy: Uuid,
});
export type ReviewResult = Static<typeof AiReviewResultShape>;

export const CalibrationBandShape = T.Object({
  band: T.String(),
  from: T.Number(),
  to: T.Number(),
  published: T.Integer(),
  demoted: T.Integer(),
  demotionRate: Nullable(T.Number()),
});
export type CalibrationBand = Static<typeof CalibrationBandShape>;
export const CalibrationShape = T.Object({
  publishedBy: T.String(),
  bands: T.Array(CalibrationBandShape),
  totals: T.Object({ published: T.Integer(), demoted: T.Integer() }, { description: "the bands' sums" }),
  unscored: T.Object(
    { published: T.Integer(), demoted: T.Integer() },
    { description: 'published answers without a confidence (such as a manual answer an admin approved): in no band' },
  ),
});
export type Calibration = Static<typeof CalibrationShape>;

export const AiAnswerStateShape = T.Object({
  postId: Uuid,
  aiAnswerStatus: Nullable(AiAnswerStatusShape),
  aiAnswerScore: T.Integer({ description: 'net votes on the AI answer' }),
  myVote: Nullable(T.Union([T.Literal(1), T.Literal(-1)])),
  demoted: T.Boolean({ description: 'true when this request unpublished the AI answer (re-escalated for staff review)' }),
  status: PostStatusShape,
});
export type AiAnswerState = Static<typeof AiAnswerStateShape>;
