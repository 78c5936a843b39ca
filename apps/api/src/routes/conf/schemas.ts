import { FAQ_UPDATE_THRESHOLD } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

export const MeetingStatus = T.Union([T.Literal('pending'), T.Literal('completed'), T.Literal('failed')], {
  description: 'pending and completed as the spec; failed (an extension) when the download or the parse failed, with `error` saying why',
});
export const Sourcing = T.Union([T.Literal('webhook'), T.Literal('manual_vtt'), T.Literal('manual_raw'), T.Literal('backfill')]);
export const InsightStatus = T.Union([T.Literal('pending_review'), T.Literal('approved'), T.Literal('rejected')]);

export const ConnectQuery = T.Object({
  redirect: T.Optional(T.Boolean({ default: true, description: 'false: answer 200 with the URL instead of redirecting (for an SPA)' })),
});
export const ConnectStart = T.Object({ authorizeUrl: T.String(), state: T.String(), expiresAt: DateTime });

export const CallbackQuery = T.Object({
  code: T.String({ minLength: 1, maxLength: 2048 }),
  state: T.String({ minLength: 1, maxLength: 512 }),
});

export const Connection = T.Object(
  {
    connected: T.Boolean(),
    confUserId: Nullable(T.String()),
    confEmail: Nullable(T.String()),
    confConnectedAt: Nullable(DateTime),
    tokenExpiresAt: Nullable(DateTime),
  },
  { description: 'The connection of the caller; never a token' },
);

const DateOnly = T.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });
export const BackfillQuery = T.Object({ fromDate: DateOnly, toDate: DateOnly });
export const BackfillResult = T.Object({
  fromDate: T.String(),
  toDate: T.String(),
  recordings: T.Integer(),
  withTranscript: T.Integer(),
  queued: T.Integer(),
  alreadyPresent: T.Integer(),
});

export const Meeting = T.Object({
  id: Uuid,
  confMeetingId: T.String({ description: "the provider's meeting uuid (manual-<uuid> for uploads)" }),
  confMeetingNumber: Nullable(T.String()),
  topic: T.String(),
  status: MeetingStatus,
  sourcing: Sourcing,
  insightCount: T.Integer(),
  userId: Nullable(Uuid),
  hostEmail: Nullable(T.String()),
  startTime: Nullable(DateTime),
  durationMinutes: Nullable(T.Integer()),
  error: Nullable(T.String()),
  batchId: Nullable(Uuid),
  processedAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export const MeetingDetail = T.Intersect([Meeting, T.Object({ transcriptText: Nullable(T.String()), knowledgeCount: T.Integer() })]);

export const ListMeetingsQuery = T.Composite([
  PageQuery,
  T.Object({ status: T.Optional(MeetingStatus), sourcing: T.Optional(Sourcing), batchId: T.Optional(Uuid) }),
]);

export const Insight = T.Object({
  id: Uuid,
  meetingId: Uuid,
  batchId: Nullable(Uuid),
  question: T.String(),
  answer: T.String(),
  context: Nullable(
    T.String({
      description: 'the transcript line the answer comes from, prefixed with its cue times ("[hh:mm:ss-hh:mm:ss] Speaker: text")',
    }),
  ),
  speaker: Nullable(T.String()),
  cueStartMs: Nullable(T.Integer({ minimum: 0, description: "that line's start, milliseconds from the start of the recording" })),
  cueEndMs: Nullable(T.Integer({ minimum: 0, description: "that line's end, milliseconds from the start of the recording" })),
  status: InsightStatus,
  convertedFaqId: Nullable(Uuid),
  proposedFaqId: T.Union([Uuid, T.Null()], {
    description: `"update FAQ X": an existing FAQ of the program this insight matches closely (cosine >= ${FAQ_UPDATE_THRESHOLD}, both embedded as question + answer); convert-to-faq updates it by default. Null: convert creates a new FAQ`,
  }),
  proposedFaqScore: Nullable(T.Number({ description: 'the similarity to proposedFaqId' })),
  reviewedBy: Nullable(Uuid),
  reviewedAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export const ListInsightsQuery = T.Composite([
  PageQuery,
  T.Object({ status: T.Optional(InsightStatus), meetingId: T.Optional(Uuid), batchId: T.Optional(Uuid) }),
]);
export const UpdateInsightBody = T.Object(
  {
    status: T.Optional(InsightStatus),
    question: T.Optional(T.String({ minLength: 3, maxLength: 1000 })),
    answer: T.Optional(T.String({ minLength: 1, maxLength: 20_000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const FreshnessTier = T.Union([T.Literal('evergreen'), T.Literal('seasonal'), T.Literal('volatile')]);
export const ConvertBody = T.Object(
  {
    question: T.Optional(T.String({ minLength: 3, maxLength: 1000 })),
    answer: T.Optional(T.String({ minLength: 1, maxLength: 20_000 })),
    category: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
    freshnessTier: T.Optional(FreshnessTier),
    faqId: T.Optional(
      T.Union([Uuid, T.Null()], {
        description: 'the FAQ to update; null: always create a new FAQ; absent: follow the proposal (proposedFaqId, recomputed now)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const FaqAction = T.Union([T.Literal('created'), T.Literal('updated')], {
  description: 'created: a new FAQ; updated: the existing FAQ it matched (or faqId) took its content',
});

export const Health = T.Object({
  configured: T.Boolean({ description: 'CONF_CLIENT_ID and CONF_CLIENT_SECRET are set' }),
  webhookSecretConfigured: T.Boolean(),
  connection: Connection,
  connectedUsers: T.Integer(),
  lastEventAt: Nullable(DateTime),
  lastMeetingAt: Nullable(DateTime),
  queueDepth: Nullable(T.Integer({ description: 'ingestion jobs waiting or running' })),
  meetings: T.Object({ pending: T.Integer(), completed: T.Integer(), failed: T.Integer() }),
});
export const PublicStats = T.Object({
  meetingsProcessed: T.Integer(),
  insightsApproved: T.Integer(),
  knowledgeItems: T.Integer(),
  lastProcessedAt: Nullable(DateTime),
});

export const WebhookAnswer = T.Union([
  T.Object({ received: T.Literal(true), ignored: T.Optional(T.Literal(true)) }),
  T.Object({ plainToken: T.String(), encryptedToken: T.String() }),
]);

export const RecordingEventBody = T.Object(
  {
    event: T.String({ minLength: 1, maxLength: 100 }),
    event_ts: T.Optional(T.Number()),
    payload: T.Optional(T.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true, description: 'A provider event body, as the webhook receives it' },
);

export const UploadJsonBody = T.Object(
  {
    rawText: T.String({ minLength: 1, maxLength: 1_000_000 }),
    source: T.Literal('manual_raw'),
    topic: T.Optional(T.String({ minLength: 1, maxLength: 300 })),
    batchId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);
export const UploadMultipartBody = T.Object({
  file: T.String({ format: 'binary', description: 'the .vtt file' }),
  source: T.Literal('manual_vtt'),
  topic: T.Optional(T.String({ maxLength: 300 })),
  batchId: T.Optional(Uuid),
});
export const UploadResult = T.Object({
  meetingId: Uuid,
  confMeetingId: T.String(),
  topic: T.String(),
  status: T.Literal('completed'),
  insightCount: T.Integer(),
  knowledgeCount: T.Integer(),
});
