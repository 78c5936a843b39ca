import { Type as T } from '@sinclair/typebox';
import { BatchQuery, PageQuery, Uuid } from '../../lib/schemas.js';

export {
  NotificationListShape as NotificationList,
  NotificationShape as Notification,
  TeaDropShape as TeaDrop,
  TeaListShape as TeaList,
} from '@cfaq/core';

const Unread = T.Object({ unread: T.Optional(T.Boolean({ description: 'only unread ones' })) });
export const NotificationQuery = T.Composite([PageQuery, BatchQuery, Unread], { additionalProperties: false });
export const ProgramQuery = T.Composite([BatchQuery], { additionalProperties: false });

/** Where a stream resumes, for clients that cannot set the Last-Event-ID header; the header wins. */
export const StreamQuery = T.Object(
  {
    lastEventId: T.Optional(
      T.String({
        maxLength: 100,
        description: 'resume after this event id (a notification id or `tea:<id>`); the Last-Event-ID header wins',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Updated = T.Object({ updated: T.Integer() });
export const UnreadCount = T.Object({ count: T.Integer(), batchId: Uuid });
export const TeaRead = T.Object({ id: Uuid, read: T.Literal(true) });

export const Settings = T.Object({
  inApp: T.Boolean({ description: 'in-app notifications at all' }),
  email: T.Boolean({ description: 'stored preference; no email is sent by this service' }),
  teaDrops: T.Boolean({ description: 'personal tea drops (program-wide drops are always listed)' }),
  kinds: T.Record(T.String(), T.Boolean(), { description: 'per kind on or off; every documented kind is listed' }),
});
export const SettingsBody = T.Object(
  {
    inApp: T.Optional(T.Boolean()),
    email: T.Optional(T.Boolean()),
    teaDrops: T.Optional(T.Boolean()),
    kinds: T.Optional(T.Record(T.String({ pattern: '^[a-z_]+$' }), T.Boolean())),
  },
  { additionalProperties: false },
);
