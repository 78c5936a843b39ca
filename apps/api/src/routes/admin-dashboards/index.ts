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
import { problemResponses } from '../../lib/problem.js';
import type { RoutePlugin } from '../../lib/types.js';

const tags = ['admin: dashboards'];
// 400, 401, 403 and 429 come from the registration hook (schema, access level, limiter).
const ERRORS = problemResponses(404);
const SCOPE_DOC = 'Admin only. batchId narrows to one program (404 PROGRAM_NOT_FOUND if it does not exist); users belong to no program.';

/** The spec's admin dashboard routes: state now, growth and activity series bucketed in SQL. */
export const adminDashboardRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/admin/stats',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'The state of things now',
        description: `Users by role and suspension, FAQs by review status, posts by status with escalations and AI answers awaiting review, searches today and over the last 7 and 30 UTC days, open unresolved searches. ${SCOPE_DOC}`,
        querystring: AdminStatsQuery,
        response: { 200: AdminStats, ...ERRORS },
      },
    },
    async (request) => adminStats(ctx, request.query),
  );

  app.get(
    '/admin/faqs',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Every FAQ, with review status and freshness filters',
        description: `All review statuses (drafts and flagged included, flag reasons shown), with reviewDueAt and due. Filters: reviewStatus, freshnessTier, freshness (due or fresh), flagType; sort updated, created or reviewDue. The review queue itself is GET /admin/faqs/review. ${SCOPE_DOC}`,
        querystring: AdminFaqsQuery,
        response: { 200: AdminFaqList, ...ERRORS },
      },
    },
    async (request) => listAdminFaqs(ctx, request.query),
  );

  app.get(
    '/admin/faqs/growth',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'FAQs created per day, week or month, with the running total',
        description: `Buckets without FAQs are zero. ${SCOPE_DOC}`,
        querystring: SeriesQuery,
        response: { 200: FaqGrowth, ...ERRORS },
      },
    },
    async (request) => faqGrowth(ctx, request.query),
  );

  app.get(
    '/admin/community',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "The range's posts by status, answer rate, comments and top contributors",
        description: `limit sets the length of the contributor list. ${SCOPE_DOC}`,
        querystring: TopQuery,
        response: { 200: AdminCommunity, ...ERRORS },
      },
    },
    async (request) => adminCommunity(ctx, request.query),
  );

  app.get(
    '/admin/community/chart',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Posts, comments and answered posts per day, week or month',
        description: `Buckets without activity are zero. ${SCOPE_DOC}`,
        querystring: SeriesQuery,
        response: { 200: CommunityChart, ...ERRORS },
      },
    },
    async (request) => communityChart(ctx, request.query),
  );

  app.get(
    '/admin/search/insights',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Content gaps and search health',
        description: `Top queries, queries that found nothing, open unresolved searches, zero-result, cache-hit and degraded rates, mean latency. ${SCOPE_DOC}`,
        querystring: TopQuery,
        response: { 200: SearchInsights, ...ERRORS },
      },
    },
    async (request) => searchInsights(ctx, request.query),
  );

  app.get(
    '/admin/user-activity',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'New accounts and active authors per day, week or month',
        description: `Active: distinct authors of posts or comments in the bucket (in the program when batchId is given). ${SCOPE_DOC}`,
        querystring: SeriesQuery,
        response: { 200: UserActivity, ...ERRORS },
      },
    },
    async (request) => userActivity(ctx, request.query),
  );

  app.get(
    '/admin/community-growth',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'New posts, comments and members per day, week or month, with running totals',
        description: `Buckets without activity are zero. ${SCOPE_DOC}`,
        querystring: SeriesQuery,
        response: { 200: CommunityGrowth, ...ERRORS },
      },
    },
    async (request) => communityGrowth(ctx, request.query),
  );
};
