import { Type as T } from '@sinclair/typebox';
import { BatchQuery, DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

const Unread = T.Object({ unread: T.Optional(T.Boolean({ description: 'only unread ones' })) });
export const NotificationQuery = T.Composite([PageQuery, BatchQuery, Unread], { additionalProperties: false });
export const ProgramQuery = T.Composite([BatchQuery], { additionalProperties: false });

export const Notification = T.Object({
  id: Uuid,
  batchId: Nullable(Uuid),
  kind: T.String(),
  title: T.String(),
  body: Nullable(T.String()),
  link: Nullable(T.String()),
  data: T.Record(T.String(), T.Unknown()),
  read: T.Boolean(),
  readAt: Nullable(DateTime),
  createdAt: DateTime,
});

const page = { total: T.Integer(), page: T.Integer(), limit: T.Integer(), unreadCount: T.Integer() };
export const NotificationList = T.Object({ items: T.Array(Notification), ...page });

export const TeaDrop = T.Object({
  id: Uuid,
  batchId: Nullable(Uuid),
  kind: T.String(),
  title: T.String(),
  body: Nullable(T.String()),
  link: Nullable(T.String()),
  refType: Nullable(T.String()),
  refId: Nullable(Uuid),
  personal: T.Boolean({ description: 'true: for you only; false: for everyone in the program' }),
  read: T.Boolean(),
  createdAt: DateTime,
});
export const TeaList = T.Object({ items: T.Array(TeaDrop), ...page });

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
