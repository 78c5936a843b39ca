import { type Static, Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of notifications and tea drops: declared once here, used as route schemas and, through Static, as core types. */

export const NotificationShape = T.Object({
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
export type NotificationView = Static<typeof NotificationShape>;

const page = { total: T.Integer(), page: T.Integer(), limit: T.Integer(), unreadCount: T.Integer() };
export const NotificationListShape = T.Object({ items: T.Array(NotificationShape), ...page });

export const TeaDropShape = T.Object({
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
export type TeaDropView = Static<typeof TeaDropShape>;
export const TeaListShape = T.Object({ items: T.Array(TeaDropShape), ...page });
