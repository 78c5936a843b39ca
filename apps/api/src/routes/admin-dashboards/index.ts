import {
  AdminCommunity,
  AdminFaqList,
  AdminFaqsQuery,
  AdminStats,
  AdminStatsQuery,
  adminCommunity,
  adminStats,
  CommunityChart,
  CommunityGrowth,
  communityChart,
  communityGrowth,
  FaqGrowth,
  faqGrowth,
  listAdminFaqs,
  SearchInsights,
  SeriesQuery,
  searchInsights,
  TopQuery,
  UserActivity,
  userActivity,
} from '@cfaq/core';
import { report, reportRoutes } from '../../lib/report-routes.js';
import type { RoutePlugin } from '../../lib/types.js';

/** The spec's admin dashboard routes: state now, growth and activity series bucketed in SQL. */
export const adminDashboardRoutes: RoutePlugin = async (app) => {
  reportRoutes(
    app,
    {
      access: 'admin',
      tags: ['admin: dashboards'],
      scopeDoc: 'Admin only. batchId narrows to one program (404 PROGRAM_NOT_FOUND if it does not exist); users belong to no program.',
    },
    [
      report({
        url: '/admin/stats',
        summary: 'The state of things now',
        description: `Users by role and suspension, FAQs by review status, posts by status with escalations and AI answers awaiting review, searches today and over the last 7 and 30 UTC days, open unresolved searches.`,
        query: AdminStatsQuery,
        response: AdminStats,
        run: adminStats,
      }),
      report({
        url: '/admin/faqs',
        summary: 'Every FAQ, with review status and freshness filters',
        description: `All review statuses (drafts and flagged included, flag reasons shown), with reviewDueAt and due. Filters: reviewStatus, freshnessTier, freshness (due or fresh), flagType; sort updated, created or reviewDue. The review queue itself is GET /admin/faqs/review.`,
        query: AdminFaqsQuery,
        response: AdminFaqList,
        run: listAdminFaqs,
      }),
      report({
        url: '/admin/faqs/growth',
        summary: 'FAQs created per day, week or month, with the running total',
        description: `Buckets without FAQs are zero.`,
        query: SeriesQuery,
        response: FaqGrowth,
        run: faqGrowth,
      }),
      report({
        url: '/admin/community',
        summary: "The range's posts by status, answer rate, comments and top contributors",
        description: `limit sets the length of the contributor list.`,
        query: TopQuery,
        response: AdminCommunity,
        run: adminCommunity,
      }),
      report({
        url: '/admin/community/chart',
        summary: 'Posts, comments and answered posts per day, week or month',
        description: `Buckets without activity are zero.`,
        query: SeriesQuery,
        response: CommunityChart,
        run: communityChart,
      }),
      report({
        url: '/admin/search/insights',
        summary: 'Content gaps and search health',
        description: `Top queries, queries that found nothing, open unresolved searches, zero-result, cache-hit and degraded rates, mean latency.`,
        query: TopQuery,
        response: SearchInsights,
        run: searchInsights,
      }),
      report({
        url: '/admin/user-activity',
        summary: 'New accounts and active authors per day, week or month',
        description: `Active: distinct authors of posts or comments in the bucket (in the program when batchId is given).`,
        query: SeriesQuery,
        response: UserActivity,
        run: userActivity,
      }),
      report({
        url: '/admin/community-growth',
        summary: 'New posts, comments and members per day, week or month, with running totals',
        description: `Buckets without activity are zero.`,
        query: SeriesQuery,
        response: CommunityGrowth,
        run: communityGrowth,
      }),
    ],
  );
};
