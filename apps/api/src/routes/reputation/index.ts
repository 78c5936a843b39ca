import {
  AUTOMATIC_BADGES,
  adminAwardPoints,
  adminIssueBadge,
  adminRevokeBadge,
  leaderboard,
  POINTS,
  reputationHistory,
  reputationSummary,
} from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import {
  BadgeBody,
  HistoryQuery,
  Leaderboard,
  LeaderboardQuery,
  PointsBody,
  ProgramQuery,
  ReputationLog,
  ReputationSummary,
  UserIdParams,
} from './schemas.js';

const tags = ['reputation'];
const POINTS_NOTE = `Points table: ${Object.entries(POINTS)
  .map(([k, v]) => `${k} ${v > 0 ? '+' : ''}${v}`)
  .join(
    ', ',
  )}. A reversal (undone vote, unaccepted answer, feedback changed, revoked badge) writes \`<reason>_reversed\` with the opposite points.`;
const BADGES_NOTE = `Automatic badges: ${Object.entries(AUTOMATIC_BADGES)
  .map(([k, v]) => `${k} (${v})`)
  .join('; ')}.`;

/** Reputation and badges, per program (`?batchId=`, default program when absent). */
export const reputationRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/reputation/leaderboard',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "The program's leaderboard for a period",
        description: `Users with positive points in the period, most first. ${POINTS_NOTE}`,
        querystring: LeaderboardQuery,
        response: { 200: Leaderboard, ...problemResponses(404) },
      },
    },
    async (request) => leaderboard(ctx, request.query),
  );

  app.get(
    '/reputation/me',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'My points, rank and badges in the program',
        description: BADGES_NOTE,
        querystring: ProgramQuery,
        response: { 200: ReputationSummary, ...problemResponses(404) },
      },
    },
    async (request) => reputationSummary(ctx, signedIn(request).id, request.query.batchId),
  );

  app.get(
    '/reputation/history',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'My reputation log in the program, newest first',
        querystring: HistoryQuery,
        response: { 200: listOf(ReputationLog), ...problemResponses(404) },
      },
    },
    async (request) => reputationHistory(ctx, signedIn(request).id, request.query),
  );

  app.get(
    '/reputation/user/:userId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "A user's points, rank and badges in the program (admin)",
        params: UserIdParams,
        querystring: ProgramQuery,
        response: { 200: ReputationSummary, ...problemResponses(404) },
      },
    },
    async (request) => reputationSummary(ctx, request.params.userId, request.query.batchId),
  );

  for (const url of ['/reputation/points', '/reputation/award']) {
    app.post(
      url,
      {
        // Two spellings, one function: one admin-write budget between them.
        config: { access: 'admin', rateLimit: { ...app.limits.adminWrite, groupId: 'reputation-points' } },
        schema: {
          tags,
          summary: 'Award or deduct points by hand (admin)',
          description: 'Written to the reputation log (sourceType admin) and the admin log; the user gets a points_awarded notification.',
          body: PointsBody,
          response: { 200: ReputationSummary, ...problemResponses(404) },
        },
      },
      async (request) => adminAwardPoints(ctx, signedIn(request), request.body),
    );
  }

  for (const url of ['/reputation/badge/issue', '/reputation/badge']) {
    app.post(
      url,
      {
        // Two spellings, one function: one admin-write budget between them.
        config: { access: 'admin', rateLimit: { ...app.limits.adminWrite, groupId: 'reputation-badge-issue' } },
        schema: {
          tags,
          summary: 'Issue a badge (admin)',
          description: `409 BADGE_ALREADY_HELD while the user holds it in the program. Audit-logged; the user is notified. ${BADGES_NOTE}`,
          body: BadgeBody,
          response: { 201: ReputationSummary, ...problemResponses(404, 409) },
        },
      },
      async (request, reply) => reply.status(201).send(await adminIssueBadge(ctx, signedIn(request), request.body)),
    );
  }

  for (const url of ['/reputation/badge/revoke', '/reputation/revoke-badge']) {
    app.post(
      url,
      {
        // Two spellings, one function: one admin-write budget between them.
        config: { access: 'admin', rateLimit: { ...app.limits.adminWrite, groupId: 'reputation-badge-revoke' } },
        schema: {
          tags,
          summary: 'Revoke a badge (admin)',
          description:
            '404 BADGE_NOT_HELD when the user does not hold it. The badge row stays with its revocation; points it carried are taken back. ' +
            'An automatic badge, once revoked, is not awarded again automatically. Audit-logged; the user is notified (badge_revoked).',
          body: BadgeBody,
          response: { 200: ReputationSummary, ...problemResponses(404) },
        },
      },
      async (request) => adminRevokeBadge(ctx, signedIn(request), request.body),
    );
  }
};
