import { Type as T } from '@sinclair/typebox';
import { PageQuery, TimeBoundInput, Uuid, VisibleText } from '../../lib/schemas.js';

export { EscalatedPostShape as EscalatedPost, EscalationHistoryItemShape as HistoryItem } from '@cfaq/core';

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
  { note: T.Optional(VisibleText(1, 2000, { description: 'optional; written to the history and the admin log' })) },
  { additionalProperties: false },
);
export const DismissPostBody = T.Object(
  { reason: VisibleText(3, 2000, { visible: 1, description: 'written to the history and the admin log' }) },
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
    from: T.Optional(TimeBoundInput),
    to: T.Optional(TimeBoundInput),
  },
  { additionalProperties: false },
);
