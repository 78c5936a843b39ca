import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery } from '../../lib/schemas.js';
import { RoleSchema, User, UserStatus } from '../auth/schemas.js';

export const RoleBody = T.Object({ role: RoleSchema }, { additionalProperties: false });

export const UserListQuery = T.Composite(
  [
    PageQuery,
    T.Object({
      role: T.Optional(RoleSchema),
      status: T.Optional(UserStatus),
      q: T.Optional(T.String({ minLength: 1, maxLength: 200, description: 'name or email contains' })),
    }),
  ],
  { additionalProperties: false },
);

export const UserDetail = T.Composite([
  User,
  T.Object({
    suspendedAt: Nullable(DateTime),
    suspendedUntil: Nullable(DateTime),
    suspendedReason: Nullable(T.String()),
    lastLoginAt: Nullable(DateTime),
  }),
]);
