import { Type as T } from '@sinclair/typebox';
import { DateTimeInput, PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';

export { AuditLogItemShape as LogItem } from '@cfaq/core';

export const SuspendBody = T.Object(
  {
    userId: Uuid,
    reason: VisibleText(1, 1000),
    until: T.Optional(T.String({ ...DateTimeInput, description: 'end of the suspension (year 1900 to 2999); absent = until lifted' })),
  },
  { additionalProperties: false },
);
export const UnsuspendBody = T.Object({ userId: Uuid, reason: T.Optional(VisibleText(1, 1000)) }, { additionalProperties: false });

export const LogQuery = T.Composite(
  [
    PageQuery,
    T.Object({
      kind: T.Optional(
        T.Union([T.Literal('moderation'), T.Literal('admin')], {
          default: 'moderation',
          description: 'moderation: suspensions (ModerationLog); admin: other admin writes (AdminLog)',
        }),
      ),
      action: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
      actorId: T.Optional(Uuid),
      targetId: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
    }),
  ],
  { additionalProperties: false },
);
