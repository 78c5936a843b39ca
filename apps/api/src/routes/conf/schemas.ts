import { InsightStatusShape as InsightStatus, MeetingStatusShape as MeetingStatus, MeetingSourcingShape as Sourcing } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { DayInput, PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';
import { Answer, Question } from '../faq/schemas.js';

export {
  ConfBackfillResultShape as BackfillResult,
  ConfConnectionShape as Connection,
  ConfConnectStartShape as ConnectStart,
  ConfHealthShape as Health,
  ConfPublicStatsShape as PublicStats,
  ConvertInsightResultShape as ConvertResult,
  FaqActionShape as FaqAction,
  InsightShape as Insight,
  MeetingDetailShape as MeetingDetail,
  MeetingShape as Meeting,
  UploadResultShape as UploadResult,
  WebhookAnswerShape as WebhookAnswer,
} from '@cfaq/core';
export { InsightStatus, MeetingStatus, Sourcing };

export const ConnectQuery = T.Object(
  {
    redirect: T.Optional(T.Boolean({ default: true, description: 'false: answer 200 with the URL instead of redirecting (for an SPA)' })),
  },
  { additionalProperties: false },
);

/** RFC 6749 §4.1.2: `code` and `state` on success; §4.1.2.1: `error` (+ `error_description`, `error_uri`) and `state` when declined. */
export const CallbackQuery = T.Object(
  {
    code: T.Optional(
      T.String({ minLength: 1, maxLength: 2048, description: 'the authorization code (absent when the provider sends error)' }),
    ),
    state: T.String({ minLength: 1, maxLength: 512 }),
    error: T.Optional(
      T.String({ minLength: 1, maxLength: 100, description: 'the provider declined, RFC 6749 §4.1.2.1 (access_denied: the user said no)' }),
    ),
    error_description: T.Optional(T.String({ maxLength: 1000 })),
    error_uri: T.Optional(T.String({ maxLength: 2048 })),
  },
  // A provider may add parameters of its own to the redirect (RFC 6749 §4.1.2): ignored, not refused.
  { additionalProperties: true },
);

// Days as every date a client sends: YYYY-MM-DD, years 1900 to 2999 (0000-01-01 passed to the provider).
export const BackfillQuery = T.Object({ fromDate: DayInput, toDate: DayInput }, { additionalProperties: false });
export const ListMeetingsQuery = T.Composite(
  [PageQuery, T.Object({ status: T.Optional(MeetingStatus), sourcing: T.Optional(Sourcing), batchId: T.Optional(Uuid) })],
  { additionalProperties: false },
);

export const ListInsightsQuery = T.Composite(
  [PageQuery, T.Object({ status: T.Optional(InsightStatus), meetingId: T.Optional(Uuid), batchId: T.Optional(Uuid) })],
  { additionalProperties: false },
);
export const UpdateInsightBody = T.Object(
  {
    status: T.Optional(InsightStatus),
    question: T.Optional(VisibleText(3, 1000)),
    answer: T.Optional(VisibleText(1, 20_000)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const FreshnessTier = T.Union([T.Literal('evergreen'), T.Literal('seasonal'), T.Literal('volatile')]);
/** POST /faq's rules for the question and answer: a converted insight is a published FAQ. */
export const ConvertBody = T.Object(
  {
    question: T.Optional(Question),
    answer: T.Optional(Answer),
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
