import { RoleShape as RoleSchema, UserStatusShape as UserStatus } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { PageQuery } from '../../lib/schemas.js';

export { UserDetailShape as UserDetail } from '@cfaq/core';

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
