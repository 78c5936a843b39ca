import { dismissEscalatedPost, escalationHistory, listEscalatedPosts, resolveEscalatedPost } from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams, listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { DismissPostBody, EscalatedPost, EscalatedPostsQuery, HistoryItem, HistoryQuery, ResolveBody } from './schemas.js';

const tags = ['admin: escalations'];

const RULES =
  'The escalation job (every UNANSWERED_ESCALATION_CHECK_MINUTES) escalates a post with UNANSWERED_ESCALATION_COMMENTS (3) or more unanswered comments ' +
  '(live, marked dna, neither accepted nor verified) and notifies every admin once; on the same tick a post without an accepted or verified answer for ' +
  'UNANSWERED_ESCALATION_DAYS, read as hours (the spec says 16 hours in its text and names the setting _DAYS in its table), becomes pending.';

/** Escalated community posts: the list, the two closing moves and the history (admin). */
export const adminEscalationRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  for (const url of ['/admin/community/escalated-posts', '/admin/escalated-posts']) {
    app.get(
      url,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Escalated community posts',
          description: `Oldest escalation first; ?status=resolved|dismissed|all for the closed ones. ${RULES}`,
          querystring: EscalatedPostsQuery,
          response: { 200: listOf(EscalatedPost) },
        },
      },
      async (request) => listEscalatedPosts(ctx, request.query),
    );
  }

  for (const url of ['/admin/community/escalated-posts/:id/resolve', '/admin/escalated/:id/resolve']) {
    app.post(
      url,
      {
        // Two spellings, one function: one admin-write budget between them.
        config: { access: 'admin', rateLimit: { ...app.limits.adminWrite, groupId: 'escalated-post-resolve' } },
        schema: {
          tags,
          summary: 'Resolve an escalated post',
          description:
            'escalationStatus escalated -> resolved (escalationResolvedAt, escalationResolvedBy, optional note); written to the escalation history and the admin log. 422 POST_NOT_ESCALATED in any other state.',
          params: IdParams,
          body: ResolveBody,
          response: { 200: EscalatedPost, ...problemResponses(404, 422) },
        },
      },
      async (request) => resolveEscalatedPost(ctx, signedIn(request), request.params.id, request.body.note ?? null),
    );
  }

  app.post(
    '/admin/community/escalated-posts/:id/dismiss',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Dismiss an escalated post with a reason',
        description:
          'escalationStatus escalated -> dismissed; the reason goes to the escalation history and the admin log. A dismissed post is never escalated again. 422 POST_NOT_ESCALATED in any other state.',
        params: IdParams,
        body: DismissPostBody,
        response: { 200: EscalatedPost, ...problemResponses(404, 422) },
      },
    },
    async (request) => dismissEscalatedPost(ctx, signedIn(request), request.params.id, request.body.reason),
  );

  for (const url of ['/admin/community/escalation-history', '/admin/escalation-history']) {
    app.get(
      url,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Escalation history',
          description:
            'Every escalation move and time-trial event, newest first: escalated, resolved, dismissed, pending (time trial started), first_responder (its winner). Filters: postId, action, batchId, from, to.',
          querystring: HistoryQuery,
          response: { 200: listOf(HistoryItem) },
        },
      },
      async (request) => escalationHistory(ctx, request.query),
    );
  }
};
