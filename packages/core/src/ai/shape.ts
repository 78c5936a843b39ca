import { type Static, Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../shared/shape.js';
import { AI_PROVIDERS } from './providers.js';

/** The response shapes of the admin AI configuration (providers, active choices, usage): declared once here. */

export const AiProviderNameShape = T.Union(AI_PROVIDERS.map((p) => T.Literal(p)));

const KeySource = T.Union([T.Literal('config'), T.Literal('env')]);
export const ProviderViewShape = T.Object({
  name: AiProviderNameShape,
  configured: T.Boolean(),
  keySource: Nullable(KeySource),
  keyLast4: Nullable(T.String()),
  baseUrl: Nullable(T.String()),
  baseUrlSource: KeySource,
  defaultModel: T.String(),
});
export type ProviderView = Static<typeof ProviderViewShape>;

export const ActiveChoiceShape = T.Object({
  provider: Nullable(AiProviderNameShape),
  model: Nullable(T.String()),
  source: Nullable(T.Union([T.Literal('config'), T.Literal('env'), T.Literal('auto')])),
  configured: T.Boolean(),
  reason: Nullable(T.String()),
});
export type ActiveChoice = Static<typeof ActiveChoiceShape>;
/** The choice per pipeline (AI_PIPELINES). */
export const ActiveMapShape = T.Object({
  auto_answer: ActiveChoiceShape,
  faq_audit: ActiveChoiceShape,
  knowledge_chat: ActiveChoiceShape,
  conf_insights: ActiveChoiceShape,
});
export type ActiveMap = Static<typeof ActiveMapShape>;

const Counters = {
  calls: T.Integer(),
  failures: T.Integer(),
  retries: T.Integer(),
  inputTokens: T.Integer(),
  outputTokens: T.Integer(),
};
export const UsageRowShape = T.Object({
  provider: T.String(),
  model: T.String(),
  pipeline: T.String(),
  batchId: Nullable(Uuid),
  ...Counters,
  lastUsedAt: Nullable(DateTime),
});
export type UsageRow = Static<typeof UsageRowShape>;
export const UsageReportShape = T.Object({ since: Nullable(DateTime), totals: T.Object(Counters), rows: T.Array(UsageRowShape) });
export type UsageReport = Static<typeof UsageReportShape>;

export const AiConfigShape = T.Object({
  provider: Nullable(T.String()),
  model: Nullable(T.String()),
  autoAnswerProvider: Nullable(T.String()),
  autoAnswerModel: Nullable(T.String()),
  faqAuditProvider: Nullable(T.String()),
  faqAuditModel: Nullable(T.String()),
  providers: T.Array(ProviderViewShape),
  active: ActiveMapShape,
  usage: UsageReportShape,
  updatedAt: Nullable(DateTime),
  updatedBy: Nullable(Uuid),
});
export type AiConfigView = Static<typeof AiConfigShape>;

export const ResetUsageShape = T.Object({ cleared: T.Integer(), resetAt: DateTime });
export type ResetUsage = Static<typeof ResetUsageShape>;

export const ProvidersReportShape = T.Object({
  detectionOrder: T.Array(AiProviderNameShape),
  detected: Nullable(AiProviderNameShape),
  providers: T.Array(ProviderViewShape),
  active: ActiveMapShape,
});
export type ProvidersReport = Static<typeof ProvidersReportShape>;

export const ProviderTestResultShape = T.Object({
  provider: AiProviderNameShape,
  model: T.String(),
  ok: T.Boolean(),
  latencyMs: T.Integer(),
  error: Nullable(T.String()),
});
export type ProviderTestResult = Static<typeof ProviderTestResultShape>;
export const ProviderTestShape = T.Object({ results: T.Array(ProviderTestResultShape), notConfigured: T.Array(AiProviderNameShape) });
export type ProviderTest = Static<typeof ProviderTestShape>;

/** The one read of a stored key (audit-logged). */
export const RevealedKeyShape = T.Object({ provider: AiProviderNameShape, apiKey: T.String() });
export type RevealedKey = Static<typeof RevealedKeyShape>;
