import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

const EscalationStatus = T.Union([T.Literal('none'), T.Literal('escalated'), T.Literal('resolved'), T.Literal('dismissed')]);

export const EscalatedPost = T.Object({
  id: Uuid,
  batchId: Nullable(Uuid),
  authorId: Nullable(Uuid),
  title: T.String(),
  body: T.String(),
  status: T.String(),
  commentCount: T.Integer(),
  unansweredComments: T.Integer({ description: 'live comments marked dna, neither accepted nor verified' }),
  escalationStatus: EscalationStatus,
  escalatedAt: Nullable(DateTime),
  escalationResolvedAt: Nullable(DateTime),
  escalationResolvedBy: Nullable(Uuid),
  escalationNote: Nullable(T.String({ description: 'the resolve note or dismiss reason (staff only)' })),
  pendingAt: Nullable(DateTime),
  firstResponderId: Nullable(Uuid),
  firstRespondedAt: Nullable(DateTime),
  createdAt: DateTime,
});

export const EscalatedPostsQuery = T.Object(
  {
    ...PageQuery.properties,
    batchId: T.Optional(Uuid),
    status: T.Optional(
      T.Union([T.Literal('escalated'), T.Literal('resolved'), T.Literal('dismissed'), T.Literal('all')], {
        default: 'escalated',
        description: 'escalated (default), resolved, dismissed, or all three',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ResolveBody = T.Object(
  { note: T.Optional(T.String({ maxLength: 2000, description: 'optional; written to the history and the admin log' })) },
  { additionalProperties: false },
);
export const DismissPostBody = T.Object(
  { reason: T.String({ minLength: 3, maxLength: 2000, pattern: '\\S', description: 'written to the history and the admin log' }) },
  { additionalProperties: false },
);

const HistoryAction = T.Union([
  T.Literal('escalated'),
  T.Literal('resolved'),
  T.Literal('dismissed'),
  T.Literal('pending'),
  T.Literal('first_responder'),
]);

export const HistoryQuery = T.Object(
  {
    ...PageQuery.properties,
    postId: T.Optional(Uuid),
    action: T.Optional(HistoryAction),
    batchId: T.Optional(Uuid),
    from: T.Optional(T.String({ format: 'date-time' })),
    to: T.Optional(T.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const HistoryItem = T.Object({
  id: Uuid,
  postId: Uuid,
  postTitle: Nullable(T.String()),
  batchId: Nullable(Uuid),
  action: T.String(),
  fromStatus: Nullable(T.String()),
  toStatus: Nullable(T.String()),
  actorId: Nullable(Uuid),
  actorName: Nullable(T.String()),
  reason: Nullable(T.String()),
  details: T.Record(T.String(), T.Unknown()),
  createdAt: DateTime,
});
