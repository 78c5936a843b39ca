import {
  analyticsOverview,
  CommunityAnalytics,
  communityAnalytics,
  Overview,
  RangeQuery,
  SearchAnalytics,
  SeriesQuery,
  searchAnalytics,
  TopQuery,
} from '@cfaq/core';
import { problemResponses } from '../../lib/problem.js';
import type { RoutePlugin } from '../../lib/types.js';

const tags = ['analytics'];
// 400, 401, 403 and 429 come from the registration hook (schema, access level, limiter).
const ERRORS = problemResponses(404);
const SCOPE_DOC = 'Admin or moderator. batchId narrows to one program (404 PROGRAM_NOT_FOUND if it does not exist).';

/** The spec's analytics routes (admin or moderator): the numbers behind the staff dashboard. */
export const analyticsRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/analytics/overview',
    {
      config: { access: 'staff' },
      schema: {
        tags,
        summary: 'Headline numbers of a date range',
        description: `Posts and their answer rate, search volume with zero-result and cache-hit rates, FAQs created, live and waiting for review, new accounts and active contributors, open unresolved searches. ${SCOPE_DOC}`,
        querystring: RangeQuery,
        response: { 200: Overview, ...ERRORS },
      },
    },
    async (request) => analyticsOverview(ctx, request.query),
  );

  app.get(
    '/analytics/search',
    {
      config: { access: 'staff' },
      schema: {
        tags,
        summary: 'Search volume, zero-result rate, cache hit rate, top queries and unresolved searches',
        description: `Counts are searches (cache hits included). Complete days come from the daily rollup (job analytics.rollup), later days from the log. ${SCOPE_DOC}`,
        querystring: TopQuery,
        response: { 200: SearchAnalytics, ...ERRORS },
      },
    },
    async (request) => searchAnalytics(ctx, request.query),
  );

  app.get(
    '/analytics/community',
    {
      config: { access: 'staff' },
      schema: {
        tags,
        summary: 'Posts, answer rate, median time to first answer, AI auto-answer and approval rates',
        description: `Over the posts created in the range. The first answer is when the post became answered (an accepted or verified comment, a resolve, or a published AI answer). ${SCOPE_DOC}`,
        querystring: SeriesQuery,
        response: { 200: CommunityAnalytics, ...ERRORS },
      },
    },
    async (request) => communityAnalytics(ctx, request.query),
  );
};
