import { confInsightStatus, confMeetingStatus, confSourcing } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { FaqShape } from '../faqs/shape.js';
import { FAQ_UPDATE_THRESHOLD } from '../knowledge/faq-match.js';
import { FaqActionShape } from '../knowledge/shape.js';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of the meeting integration (connection, meetings, insights, health, stats): declared once here. */

export const MeetingStatusShape = literals(confMeetingStatus.enumValues, {
  description: 'pending and completed as the spec; failed (an extension) when the download or the parse failed, with `error` saying why',
});
export type MeetingStatus = Static<typeof MeetingStatusShape>;
export const MeetingSourcingShape = literals(confSourcing.enumValues);
export type MeetingSourcing = Static<typeof MeetingSourcingShape>;
export const InsightStatusShape = literals(confInsightStatus.enumValues);
export type InsightStatus = Static<typeof InsightStatusShape>;

export const ConfConnectStartShape = T.Object({ authorizeUrl: T.String(), state: T.String(), expiresAt: DateTime });
export type ConfConnectStart = Static<typeof ConfConnectStartShape>;

export const ConfConnectionShape = T.Object(
  {
    connected: T.Boolean(),
    /** The same as `connected`, under the spec's User field name. */
    confConnected: T.Boolean(),
    confUserId: Nullable(T.String()),
    confEmail: Nullable(T.String()),
    confConnectedAt: Nullable(DateTime),
    tokenExpiresAt: Nullable(DateTime),
  },
  { description: 'The connection of the caller; never a token' },
);
export type ConfConnection = Static<typeof ConfConnectionShape>;

export const InsightsStatusShape = T.Union([T.Literal('extracted'), T.Literal('retrying'), T.Literal('failed'), T.Literal('skipped')], {
  description:
    'path A (insights through the AI provider) of the last processing: extracted; retrying (the AI call failed, a conf.extract-insights job will try again); failed (it failed and its retries too: POST /conf/meetings/:id/transcript re-processes the meeting); skipped (no AI provider configured)',
});
export type InsightsStatus = Static<typeof InsightsStatusShape>;
const InsightsFields = {
  insightsStatus: T.Union([InsightsStatusShape, T.Null()], {
    description: `${InsightsStatusShape.description}; null while the meeting is not completed`,
  }),
  insightsError: Nullable(T.String({ description: 'why there are no insights (retrying, failed, skipped)' })),
};

export const MeetingShape = T.Object({
  id: Uuid,
  confMeetingId: T.String({ description: "the provider's meeting uuid (manual-<uuid> for uploads)" }),
  confMeetingNumber: Nullable(T.String()),
  topic: T.String(),
  status: MeetingStatusShape,
  sourcing: MeetingSourcingShape,
  insightCount: T.Integer(),
  userId: Nullable(Uuid),
  hostEmail: Nullable(T.String()),
  startTime: Nullable(DateTime),
  durationMinutes: Nullable(T.Integer()),
  error: Nullable(T.String()),
  ...InsightsFields,
  batchId: Nullable(Uuid),
  processedAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type MeetingView = Static<typeof MeetingShape>;
export const MeetingDetailShape = T.Intersect([
  MeetingShape,
  T.Object({ transcriptText: Nullable(T.String()), knowledgeCount: T.Integer() }),
]);
export type MeetingDetail = Static<typeof MeetingDetailShape>;

export const InsightShape = T.Object({
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
  status: InsightStatusShape,
  convertedFaqId: Nullable(Uuid),
  proposedFaqId: T.Union([Uuid, T.Null()], {
    description: `"update FAQ X": an existing FAQ of the program this insight matches closely (its question, as the duplicate check would match it: vectorScore >= ${FAQ_UPDATE_THRESHOLD} with a margin over the next FAQ, or the same question word for word); convert-to-faq updates it by default. Null: convert creates a new FAQ`,
  }),
  proposedFaqScore: Nullable(T.Number({ description: 'the similarity to proposedFaqId' })),
  reviewedBy: Nullable(Uuid),
  reviewedAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type InsightView = Static<typeof InsightShape>;

export const ConvertInsightResultShape = T.Object({ faq: FaqShape, insight: InsightShape, action: FaqActionShape });
export type ConvertInsightResult = Static<typeof ConvertInsightResultShape>;

export const ConfHealthShape = T.Object({
  configured: T.Boolean({ description: 'CONF_CLIENT_ID and CONF_CLIENT_SECRET are set' }),
  webhookSecretConfigured: T.Boolean(),
  connection: ConfConnectionShape,
  connectedUsers: T.Integer(),
  lastEventAt: Nullable(DateTime),
  lastMeetingAt: Nullable(DateTime),
  queueDepth: Nullable(T.Integer({ description: 'ingestion jobs waiting or running' })),
  meetings: T.Object({ pending: T.Integer(), completed: T.Integer(), failed: T.Integer() }),
});
export type ConfHealth = Static<typeof ConfHealthShape>;

export const ConfPublicStatsShape = T.Object({
  meetingsProcessed: T.Integer(),
  insightsApproved: T.Integer(),
  knowledgeItems: T.Integer(),
  lastProcessedAt: Nullable(DateTime),
});
export type ConfPublicStats = Static<typeof ConfPublicStatsShape>;

export const ConfBackfillResultShape = T.Object({
  fromDate: T.String(),
  toDate: T.String(),
  recordings: T.Integer(),
  withTranscript: T.Integer(),
  queued: T.Integer(),
  alreadyPresent: T.Integer(),
});
export type ConfBackfillResult = Static<typeof ConfBackfillResultShape>;

export const UploadResultShape = T.Object({
  meetingId: Uuid,
  confMeetingId: T.String(),
  topic: T.String(),
  status: T.Literal('completed'),
  insightCount: T.Integer(),
  knowledgeCount: T.Integer(),
  insightsStatus: InsightsStatusShape,
  insightsError: InsightsFields.insightsError,
});
export type UploadResult = Static<typeof UploadResultShape>;

export const WebhookAnswerShape = T.Union([
  T.Object({ received: T.Literal(true), ignored: T.Optional(T.Literal(true)) }),
  T.Object({ plainToken: T.String(), encryptedToken: T.String() }),
]);
export type WebhookAnswer = Static<typeof WebhookAnswerShape>;
