import { changeUserRole, deleteUser, getUserDetail, listUsers } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams, listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { User } from '../auth/schemas.js';
import { RoleBody, UserDetail, UserListQuery } from './schemas.js';

const ROLE_NOTE =
  'Effective on the user’s next request. The last active admin cannot be demoted (422 LAST_ADMIN). Written to the admin log.';
const DELETE_NOTE =
  'Hard delete: refresh tokens, votes, notifications, reputation and badges go with the user; posts, comments and FAQs stay ' +
  'with no author. The last active admin cannot be deleted (422 LAST_ADMIN). Written to the admin log.';

/**
 * User administration (admin only), under both spellings the spec lists: /auth/users... and
 * /admin/users...; each pair shares one handler.
 */
export const adminUserRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  for (const url of ['/auth/users', '/admin/users']) {
    app.get(
      url,
      {
        config: { access: 'admin' },
        schema: {
          tags: ['admin'],
          summary: 'List users (filter by role, status, name or email)',
          querystring: UserListQuery,
          response: { 200: listOf(User) },
        },
      },
      async (request) => listUsers(ctx, request.query),
    );
  }

  app.get(
    '/admin/users/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'One user, with suspension terms and last sign-in',
        params: IdParams,
        response: { 200: UserDetail, ...problemResponses(404) },
      },
    },
    async (request) => getUserDetail(ctx, request.params.id),
  );

  for (const [method, url] of [
    ['PATCH', '/auth/users/:id/role'],
    ['PUT', '/admin/users/:id/role'],
  ] as const) {
    app.route({
      method,
      url,
      // Two spellings, one function: one admin-write budget between them.
      config: { access: 'admin', rateLimit: { ...app.limits.adminWrite, groupId: 'user-role' } },
      schema: {
        tags: ['admin'],
        summary: "Change a user's role",
        description: ROLE_NOTE,
        params: IdParams,
        body: RoleBody,
        response: { 200: User, ...problemResponses(404, 422) },
      },
      handler: async (request) => changeUserRole(ctx, signedIn(request), { userId: request.params.id, role: request.body.role }),
    });
  }

  for (const url of ['/auth/users/:id', '/admin/users/:id']) {
    app.delete(
      url,
      {
        config: { access: 'admin', rateLimit: { ...app.limits.adminWrite, groupId: 'user-delete' } },
        schema: {
          tags: ['admin'],
          summary: 'Delete a user for good',
          description: DELETE_NOTE,
          params: IdParams,
          response: { 204: T.Null(), ...problemResponses(404, 422) },
        },
      },
      async (request, reply) => {
        await deleteUser(ctx, signedIn(request), { userId: request.params.id });
        return reply.status(204).send(null);
      },
    );
  }
};
