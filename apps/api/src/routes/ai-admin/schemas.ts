import { AiProviderNameShape as ProviderName } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';

export {
  AiConfigShape as AiConfig,
  AiReviewResultShape as ReviewResult,
  AutoAnswerQueuedShape as Queued,
  CalibrationShape as Calibration,
  ProvidersReportShape as Providers,
  ProviderTestShape as ProviderTest,
  ResetUsageShape as ResetUsage,
  RevealedKeyShape as RevealedKey,
  ReviewQueueEntryShape as QueueItem,
  RunItemShape as RunItem,
  RunReportShape as RunReport,
  WhatIfShape as WhatIf,
} from '@cfaq/core';

export const QueueQuery = T.Composite(
  [
    PageQuery,
    T.Object({
      batchId: T.Optional(Uuid),
      status: T.Optional(T.Union([T.Literal('suggested'), T.Literal('escalated')], { description: 'default: both' })),
    }),
  ],
  { additionalProperties: false },
);

// Query strings are coerced: `true` and `false` arrive as booleans, anything else is one error naming the field.
const Bool = T.Boolean({ description: 'true or false' });
export const TriggerQuery = T.Object(
  {
    dry_run: T.Optional(Bool),
    dryRun: T.Optional(Bool),
    post_id: T.Optional(Uuid),
    postId: T.Optional(Uuid),
    all: T.Optional(Bool),
    batchId: T.Optional(Uuid),
    approveThreshold: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    suggestThreshold: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

export const PostIdParams = T.Object({ postId: Uuid });
export const ReviewBody = T.Object(
  {
    action: T.Union([T.Literal('approve'), T.Literal('reject'), T.Literal('escalate')]),
    manualAnswer: T.Optional(
      // Not blank (zero-width characters are blank too): a blank one was dropped and the AI text published instead.
      VisibleText(1, 10_000, { description: 'approve only (else 400): replaces the AI text (source manual)' }),
    ),
    reason: T.Optional(VisibleText(1, 1000)),
  },
  { additionalProperties: false },
);
export const CalibrationQuery = T.Object(
  {
    batchId: T.Optional(Uuid),
    publishedBy: T.Optional(T.Union([T.Literal('auto'), T.Literal('admin'), T.Literal('all')], { default: 'auto' })),
  },
  { additionalProperties: false },
);
export const ProviderParams = T.Object({ provider: ProviderName });
