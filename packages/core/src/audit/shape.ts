import { type Static, Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../shared/shape.js';

/** The response shape of the moderation and admin logs: declared once here, used as the route schema and, through Static, as the core type. */
export const AuditLogItemShape = T.Object({
  id: Uuid,
  kind: T.Union([T.Literal('moderation'), T.Literal('admin')]),
  action: T.String(),
  actorId: Nullable(Uuid),
  actorName: Nullable(T.String()),
  targetType: Nullable(T.String()),
  targetId: Nullable(T.String()),
  targetName: Nullable(T.String()),
  reason: Nullable(T.String()),
  until: Nullable(DateTime),
  details: T.Record(T.String(), T.Unknown()),
  createdAt: DateTime,
});
export type AuditLogItem = Static<typeof AuditLogItemShape>;
