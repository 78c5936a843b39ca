import { listAuditLogs, suspendUser, unsuspendUser } from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { User } from '../auth/schemas.js';
import { LogItem, LogQuery, SuspendBody, UnsuspendBody } from './schemas.js';

/** Suspensions and the audit logs (admin). */
export const moderationRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.post(
    '/moderation/suspend',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['moderation'],
        summary: 'Suspend a user',
        description:
          'Effective at once: every request of the user is refused (403 ACCOUNT_SUSPENDED), login is refused and all refresh tokens are revoked. ' +
          'Suspending a suspended user replaces reason and until. You cannot suspend yourself or the last active admin (422).',
        body: SuspendBody,
        response: { 200: User, ...problemResponses(404, 422) },
      },
    },
    async (request) => {
      return suspendUser(ctx, signedIn(request), request.body);
    },
  );

  app.post(
    '/moderation/unsuspend',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['moderation'],
        summary: 'Lift a suspension',
        description: '422 NOT_SUSPENDED when the user is not suspended.',
        body: UnsuspendBody,
        response: { 200: User, ...problemResponses(404, 422) },
      },
    },
    async (request) => unsuspendUser(ctx, signedIn(request), request.body),
  );

  app.get(
    '/moderation/logs',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['moderation'],
        summary: 'Moderation log (or, with kind=admin, the admin log), newest first',
        querystring: LogQuery,
        response: { 200: listOf(LogItem) },
      },
    },
    async (request) => listAuditLogs(ctx, request.query),
  );
};
