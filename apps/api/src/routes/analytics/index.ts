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
import { report, reportRoutes } from '../../lib/report-routes.js';
import type { RoutePlugin } from '../../lib/types.js';

/** The spec's analytics routes (admin or moderator): the numbers behind the staff dashboard. */
export const analyticsRoutes: RoutePlugin = async (app) => {
  reportRoutes(
    app,
    {
      access: 'staff',
      tags: ['analytics'],
      scopeDoc: 'Admin or moderator. batchId narrows to one program (404 PROGRAM_NOT_FOUND if it does not exist).',
    },
    [
      report({
        url: '/analytics/overview',
        summary: 'Headline numbers of a date range',
        description: `Posts and their answer rate, search volume with zero-result and cache-hit rates, FAQs created, live and waiting for review, new accounts and active contributors, open unresolved searches.`,
        query: RangeQuery,
        response: Overview,
        run: analyticsOverview,
      }),
      report({
        url: '/analytics/search',
        summary: 'Search volume, zero-result rate, cache hit rate, top queries and unresolved searches',
        description: `Counts are searches (cache hits included). Complete days come from the daily rollup (job analytics.rollup), later days from the log.`,
        query: TopQuery,
        response: SearchAnalytics,
        run: searchAnalytics,
      }),
      report({
        url: '/analytics/community',
        summary: 'Posts, answer rate, median time to first answer, AI auto-answer and approval rates',
        description: `Over the posts created in the range. The first answer is when the post became answered (an accepted or verified comment, a resolve, or a published AI answer).`,
        query: SeriesQuery,
        response: CommunityAnalytics,
        run: communityAnalytics,
      }),
    ],
  );
};
