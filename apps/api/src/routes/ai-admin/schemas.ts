import { AI_PROVIDERS } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

const ProviderName = T.Union(AI_PROVIDERS.map((p) => T.Literal(p)));
const Verdict = T.Union([T.Literal('approved'), T.Literal('suggested'), T.Literal('escalated')]);
const Source = Nullable(T.Union([T.Literal('faq_knowledge'), T.Literal('ai_generated'), T.Literal('manual')]));

export const QueueQuery = T.Composite([
  PageQuery,
  T.Object({
    batchId: T.Optional(Uuid),
    status: T.Optional(T.Union([T.Literal('suggested'), T.Literal('escalated')], { description: 'default: both' })),
  }),
]);

export const QueueItem = T.Object({
  id: Uuid,
  postId: Uuid,
  batchId: Nullable(Uuid),
  title: T.String(),
  body: T.String(),
  authorId: Nullable(Uuid),
  status: T.String(),
  aiAnswerStatus: T.String(),
  answer: Nullable(T.String()),
  confidence: Nullable(T.Number()),
  source: Source,
  sources: T.Array(T.String()),
  reason: Nullable(T.String()),
  attempts: T.Integer(),
  suggestedAt: Nullable(DateTime),
  escalatedAt: Nullable(DateTime),
  lastCheckedAt: Nullable(DateTime),
  createdAt: DateTime,
});

const Bool = T.Union([T.Boolean(), T.Literal('true'), T.Literal('false')]);
export const TriggerQuery = T.Object({
  dry_run: T.Optional(Bool),
  dryRun: T.Optional(Bool),
  post_id: T.Optional(Uuid),
  postId: T.Optional(Uuid),
  all: T.Optional(Bool),
  batchId: T.Optional(Uuid),
  approveThreshold: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  suggestThreshold: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
});

export const RunItem = T.Object({
  postId: Uuid,
  title: T.String(),
  batchId: Uuid,
  verdict: Verdict,
  confidence: Nullable(T.Number()),
  source: Source,
  sources: T.Array(T.String()),
  answer: Nullable(T.String()),
  reason: Nullable(T.String()),
  provider: Nullable(T.String()),
  model: Nullable(T.String()),
  outcome: T.Union([T.Literal('written'), T.Literal('skipped'), T.Literal('dry_run'), T.Literal('error')]),
});

const Thresholds = T.Object({ approve: T.Number(), suggest: T.Number() });
export const WhatIf = T.Object({
  thresholds: Thresholds,
  evaluated: T.Integer(),
  changed: T.Integer(),
  transitions: T.Array(T.Object({ from: Verdict, to: Verdict, count: T.Integer() })),
});

export const RunReport = T.Object({
  runId: Uuid,
  dryRun: T.Boolean(),
  thresholds: Thresholds,
  processed: T.Integer(),
  counts: T.Object({ approved: T.Integer(), suggested: T.Integer(), escalated: T.Integer(), skipped: T.Integer(), errors: T.Integer() }),
  items: T.Array(RunItem),
  durationMs: T.Integer(),
  whatIf: T.Optional(WhatIf),
});

export const Queued = T.Object({ queued: T.Literal(true), jobId: Nullable(T.String()), all: T.Boolean(), batchId: Nullable(Uuid) });

export const PostIdParams = T.Object({ postId: Uuid });
export const ReviewBody = T.Object(
  {
    action: T.Union([T.Literal('approve'), T.Literal('reject'), T.Literal('escalate')]),
    manualAnswer: T.Optional(
      T.String({ minLength: 1, maxLength: 10_000, description: 'approve only: replaces the AI text (source manual)' }),
    ),
    reason: T.Optional(T.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export const ReviewResult = T.Object({
  postId: Uuid,
  action: T.String(),
  previousStatus: T.String(),
  aiAnswerStatus: T.String(),
  aiAnswer: Nullable(T.String()),
  aiAnswerSource: Source,
  aiAnswerConfidence: Nullable(T.Number()),
  status: T.String(),
  aiAnswerReviewedAt: DateTime,
  aiAnswerReviewedBy: Uuid,
});

export const CalibrationQuery = T.Object({
  batchId: T.Optional(Uuid),
  publishedBy: T.Optional(T.Union([T.Literal('auto'), T.Literal('admin'), T.Literal('all')], { default: 'auto' })),
});
export const Calibration = T.Object({
  publishedBy: T.String(),
  bands: T.Array(
    T.Object({
      band: T.String(),
      from: T.Number(),
      to: T.Number(),
      published: T.Integer(),
      demoted: T.Integer(),
      demotionRate: Nullable(T.Number()),
    }),
  ),
  totals: T.Object({ published: T.Integer(), demoted: T.Integer() }),
});

const ProviderView = T.Object({
  name: ProviderName,
  configured: T.Boolean(),
  keySource: Nullable(T.Union([T.Literal('config'), T.Literal('env')])),
  keyLast4: Nullable(T.String()),
  baseUrl: Nullable(T.String()),
  baseUrlSource: T.Union([T.Literal('config'), T.Literal('env')]),
  defaultModel: T.String(),
});
const Active = T.Object({
  provider: Nullable(ProviderName),
  model: Nullable(T.String()),
  source: Nullable(T.Union([T.Literal('config'), T.Literal('env'), T.Literal('auto')])),
  configured: T.Boolean(),
  reason: Nullable(T.String()),
});
const ActiveMap = T.Object({ auto_answer: Active, faq_audit: Active, knowledge_chat: Active, conf_insights: Active });
const Usage = T.Object({
  since: Nullable(DateTime),
  totals: T.Object({
    calls: T.Integer(),
    failures: T.Integer(),
    retries: T.Integer(),
    inputTokens: T.Integer(),
    outputTokens: T.Integer(),
  }),
  rows: T.Array(
    T.Object({
      provider: T.String(),
      model: T.String(),
      pipeline: T.String(),
      batchId: Nullable(Uuid),
      calls: T.Integer(),
      failures: T.Integer(),
      retries: T.Integer(),
      inputTokens: T.Integer(),
      outputTokens: T.Integer(),
      lastUsedAt: Nullable(DateTime),
    }),
  ),
});
export const AiConfig = T.Object({
  provider: Nullable(T.String()),
  model: Nullable(T.String()),
  autoAnswerProvider: Nullable(T.String()),
  autoAnswerModel: Nullable(T.String()),
  faqAuditProvider: Nullable(T.String()),
  faqAuditModel: Nullable(T.String()),
  providers: T.Array(ProviderView),
  active: ActiveMap,
  usage: Usage,
  updatedAt: Nullable(DateTime),
  updatedBy: Nullable(Uuid),
});
export const ResetUsage = T.Object({ cleared: T.Integer(), resetAt: DateTime });
export const Providers = T.Object({
  detectionOrder: T.Array(ProviderName),
  detected: Nullable(ProviderName),
  providers: T.Array(ProviderView),
  active: ActiveMap,
});
export const ProviderTest = T.Object({
  results: T.Array(
    T.Object({ provider: ProviderName, model: T.String(), ok: T.Boolean(), latencyMs: T.Integer(), error: Nullable(T.String()) }),
  ),
  notConfigured: T.Array(ProviderName),
});
export const ProviderParams = T.Object({ provider: ProviderName });
export const RevealedKey = T.Object({ provider: ProviderName, apiKey: T.String() });
