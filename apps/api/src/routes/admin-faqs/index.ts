import {
  closeFaqReport,
  dismissEscalatedFaq,
  listCommunityPending,
  listEscalatedFaqs,
  listFaqReports,
  objectToFaq,
  promoteFaqNow,
  staffReviewQueue,
  verifyEscalatedFaq,
} from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams, listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { Faq } from '../faq/schemas.js';
import {
  CloseReportBody,
  CommunityPendingItem,
  CommunityPendingQuery,
  DismissBody,
  EscalatedQuery,
  FaqReportItem,
  ObjectBody,
  ReportListQuery,
  ReviewQueueQuery,
  StaffReviewItem,
} from './schemas.js';

const tags = ['admin: pipelines'];

const ESCALATION_ACCESS =
  'Access: admin, as the spec\'s access table marks every /admin route ("Administration routes require admin"). ' +
  "The spec's prose also lets a moderator verify or dismiss an escalated FAQ: moderators do the same through " +
  'POST /faq/:id/escalation/verify and POST /faq/:id/escalation/dismiss (staff), which share this logic.';

/** The moderator side of freshness review and the promotion cycle's admin routes. */
export const adminFaqRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/admin/escalated',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Escalated FAQs (update_requested) with their vote tally, suggestions, latest audit and open reports',
        description: 'Longest waiting first. Every program unless batchId is given.',
        querystring: EscalatedQuery,
        response: { 200: listOf(StaffReviewItem) },
      },
    },
    async (request) => listEscalatedFaqs(ctx, request.query),
  );

  app.post(
    '/admin/escalated/:id/verify',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Verify an escalated FAQ',
        description: `update_requested -> verified, lastVerifiedDate = now, the flag cleared; written to FreshReviewLog and the admin log. 422 FAQ_NOT_ESCALATED in any other state. ${ESCALATION_ACCESS}`,
        params: IdParams,
        response: { 200: Faq, ...problemResponses(404, 422) },
      },
    },
    async (request) => verifyEscalatedFaq(ctx, signedIn(request), request.params.id),
  );

  app.post(
    '/admin/escalated/:id/dismiss',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Dismiss an escalated FAQ with a reason',
        description: `update_requested -> verified (lastVerifiedDate = now); the reason goes to the admin log (action faq.escalation_dismissed) and FreshReviewLog. ${ESCALATION_ACCESS}`,
        params: IdParams,
        body: DismissBody,
        response: { 200: Faq, ...problemResponses(404, 422) },
      },
    },
    async (request) => dismissEscalatedFaq(ctx, signedIn(request), request.params.id, request.body.reason),
  );

  app.get(
    '/admin/faqs/review',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'The FAQ review queue',
        description:
          "pending_review and update_requested FAQs, and FAQs of any review status with an open user report (POST /faq/:id/report), longest waiting first. Each with flag type and reason, the current cycle's vote tally and suggestions, the latest audit result, openReportCount and openReports (newest first, at most 20; staff-only text). " +
          'Filters: reviewStatus (then only that status, reported or not), flagType, batchId, reported (true: only FAQs with an open report; false: only those without). ' +
          'A reported FAQ stays listed until staff close its reports (PATCH /admin/faqs/reports/:id); verifying or dismissing its review does not close them.',
        querystring: ReviewQueueQuery,
        response: { 200: listOf(StaffReviewItem) },
      },
    },
    async (request) => staffReviewQueue(ctx, request.query),
  );

  app.get(
    '/admin/faqs/reports',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'User reports on FAQs',
        description:
          'Newest first, with the FAQ (question, batchId), the reporter, the reason (staff-only text), the status and who closed it when. Filters: status (open by default; resolved, dismissed, all), faqId, batchId.',
        querystring: ReportListQuery,
        response: { 200: listOf(FaqReportItem) },
      },
    },
    async (request) => listFaqReports(ctx, request.query),
  );

  app.patch(
    '/admin/faqs/reports/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Close a FAQ report (resolved or dismissed)',
        description:
          "open -> resolved (acted on) or dismissed (nothing to do), with resolvedBy and resolvedAt; the admin log records faq.report_resolved or faq.report_dismissed with the note as its reason. The FAQ's review status is left alone. The reporter may then report the FAQ again. 404 REPORT_NOT_FOUND; 422 REPORT_NOT_OPEN when it is already closed.",
        params: IdParams,
        body: CloseReportBody,
        response: { 200: FaqReportItem, ...problemResponses(404, 422) },
      },
    },
    async (request) => closeFaqReport(ctx, signedIn(request), request.params.id, request.body, request.ip),
  );

  app.get(
    '/admin/faqs/community-pending',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Community FAQs waiting for promotion',
        description:
          'Drafts from converted posts (nominated by the promotion cycle) and from suggestions with an answer, soonest eligible first. ' +
          'The cycle (every PROMOTION_INTERVAL_MINUTES) approves one when PROMOTION_OBJECTION_WINDOW_HOURS have passed without objection, its answer is not empty and its source post keeps PROMOTION_MIN_SUPPORT net votes; suggestions (support null) wait for an admin.',
        querystring: CommunityPendingQuery,
        response: { 200: listOf(CommunityPendingItem) },
      },
    },
    async (request) => listCommunityPending(ctx, request.query),
  );

  app.post(
    '/admin/faqs/:id/promote',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Approve a community-pending FAQ now',
        description:
          'community_pending or objected draft -> approved (promotionStatus promoted); the program gets a faq_approved tea drop as for any approval. 422 FAQ_NOT_COMMUNITY_PENDING otherwise, FAQ_NO_ANSWER when the answer is empty.',
        params: IdParams,
        response: { 200: CommunityPendingItem, ...problemResponses(404, 422) },
      },
    },
    async (request) => promoteFaqNow(ctx, signedIn(request), request.params.id),
  );

  app.post(
    '/admin/faqs/:id/object',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Object to a community-pending FAQ',
        description:
          'Stops automatic promotion: promotionStatus objected, objectionCount + 1, the reason in the admin log (faq.promotion_objected). Only an admin promote approves it afterwards.',
        params: IdParams,
        body: ObjectBody,
        response: { 200: CommunityPendingItem, ...problemResponses(404, 422) },
      },
    },
    async (request) => objectToFaq(ctx, signedIn(request), request.params.id, request.body.reason),
  );

  // The moderator's way to the same two moves (see ESCALATION_ACCESS).
  app.post(
    '/faq/:id/escalation/verify',
    {
      config: { access: 'staff' },
      schema: {
        tags: ['faq'],
        summary: 'Verify an escalated FAQ (moderator or admin)',
        description: "Same as POST /admin/escalated/:id/verify, open to moderators as the spec's freshness text says.",
        params: IdParams,
        response: { 200: Faq, ...problemResponses(404, 422) },
      },
    },
    async (request) => verifyEscalatedFaq(ctx, signedIn(request), request.params.id),
  );

  app.post(
    '/faq/:id/escalation/dismiss',
    {
      config: { access: 'staff' },
      schema: {
        tags: ['faq'],
        summary: 'Dismiss an escalated FAQ with a reason (moderator or admin)',
        description: "Same as POST /admin/escalated/:id/dismiss, open to moderators as the spec's freshness text says.",
        params: IdParams,
        body: DismissBody,
        response: { 200: Faq, ...problemResponses(404, 422) },
      },
    },
    async (request) => dismissEscalatedFaq(ctx, signedIn(request), request.params.id, request.body.reason),
  );
};
