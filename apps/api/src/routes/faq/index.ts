import {
  createFaq,
  deleteFaq,
  faqHistory,
  flagFaq,
  getFaq,
  giveFeedback,
  isStaff,
  listCategories,
  listFaqs,
  reportFaq,
  suggestFaq,
  updateFaq,
  voteReview,
} from '@cfaq/core';
import { actorOf, signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { BatchQuery, IdParams, ItemPageQuery, listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import {
  Category,
  CreateFaqBody,
  Faq,
  FeedbackBody,
  FeedbackResult,
  ListFaqsQuery,
  ReasonBody,
  Report,
  Revision,
  SuggestBody,
  UpdateFaqBody,
  VoteBody,
  VoteResult,
} from './schemas.js';

const tags = ['faq'];

/** FAQ routes (search, check-match and check-duplicate live with search). */
export const faqRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  for (const url of ['/faq', '/faq/paginated']) {
    app.get(
      url,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: "A page of the program's FAQs (drafts only for staff)",
          querystring: ListFaqsQuery,
          response: { 200: listOf(Faq), ...problemResponses(404) },
        },
      },
      async (request) => listFaqs(ctx, actorOf(request), request.query),
    );
  }

  app.get(
    '/faq/categories',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "The program's categories (a default list is seeded for a program without any)",
        querystring: BatchQuery,
        response: { 200: { type: 'array', items: Category }, ...problemResponses(404) },
      },
    },
    async (request) => listCategories(ctx, { batchId: request.query.batchId, staff: isStaff(actorOf(request)) }),
  );

  app.post(
    '/faq/suggest',
    {
      config: { access: 'user', rateLimit: app.limits.suggest },
      schema: {
        tags,
        summary: 'Suggest a FAQ (enters as draft)',
        body: SuggestBody,
        response: { 201: Faq, ...problemResponses(404) },
      },
    },
    async (request, reply) => reply.status(201).send(await suggestFaq(ctx, signedIn(request), request.body)),
  );

  app.get(
    '/faq/:id',
    {
      config: { access: 'public' },
      schema: { tags, summary: 'One FAQ (counts a view)', params: IdParams, response: { 200: Faq, ...problemResponses(404) } },
    },
    async (request) => getFaq(ctx, actorOf(request), request.params.id, { countView: request.method !== 'HEAD' }),
  );

  app.post(
    '/faq',
    {
      config: { access: 'staff' },
      schema: { tags, summary: 'Create a FAQ', body: CreateFaqBody, response: { 201: Faq, ...problemResponses(404) } },
    },
    async (request, reply) => reply.status(201).send(await createFaq(ctx, signedIn(request), request.body)),
  );

  app.put(
    '/faq/:id',
    {
      config: { access: 'staff' },
      schema: {
        tags,
        summary: 'Update a FAQ (keeps a revision)',
        description:
          'Staff. `reviewStatus` publishes a draft (`approved`, announced as a new FAQ, `lastVerifiedDate` now; 422 FAQ_NO_ANSWER ' +
          'while it has no answer) or takes a FAQ back to `draft`; ' +
          'a FAQ under review (pending_review, update_requested) keeps its status until the review decides it (422 FAQ_UNDER_REVIEW), ' +
          'though its text may be edited.',
        params: IdParams,
        body: UpdateFaqBody,
        response: { 200: Faq, ...problemResponses(404, 422) },
      },
    },
    async (request) => updateFaq(ctx, signedIn(request), request.params.id, request.body),
  );

  app.delete(
    '/faq/:id',
    {
      config: { access: 'staff' },
      schema: {
        tags,
        summary: 'Delete a FAQ',
        params: IdParams,
        response: { 204: { type: 'null' }, ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      await deleteFaq(ctx, signedIn(request), request.params.id, request.ip);
      return reply.status(204).send();
    },
  );

  app.post(
    '/faq/:id/feedback',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Helpful or not (one per user; a second call replaces the first)',
        params: IdParams,
        body: FeedbackBody,
        response: { 200: FeedbackResult, ...problemResponses(404) },
      },
    },
    async (request) => giveFeedback(ctx, signedIn(request), request.params.id, request.body),
  );

  app.post(
    '/faq/:id/report',
    {
      config: { access: 'user', rateLimit: app.limits.flag },
      schema: {
        tags,
        summary: 'Report a FAQ to the review queue (one open report per user and FAQ: 409 REPORT_ALREADY_OPEN)',
        description:
          "The report waits, open, with its FAQ in the staff review queue (GET /admin/faqs/review) until an admin closes it (PATCH /admin/faqs/reports/:id); then the same user may report the FAQ again. The FAQ's review status does not change. The reason is staff-only: no other read path shows it.",
        params: IdParams,
        body: ReasonBody,
        response: { 201: Report, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await reportFaq(ctx, signedIn(request), request.params.id, request.body.reason)),
  );

  app.get(
    '/faq/:id/history',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Revisions of a FAQ, newest first: readable by whoever may read the FAQ (drafts: staff)',
        params: IdParams,
        querystring: ItemPageQuery,
        response: { 200: listOf(Revision), ...problemResponses(404) },
      },
    },
    async (request) => faqHistory(ctx, actorOf(request), request.params.id, request.query),
  );

  for (const method of ['POST', 'PATCH'] as const) {
    app.route({
      method,
      url: '/faq/:id/flag',
      // One function, one budget: POST and PATCH count together (RATE_LIMIT_FLAG_MAX per hour, not twice that).
      config: { access: 'user', rateLimit: { ...app.limits.flag, groupId: 'faq-flag' } },
      schema: {
        tags,
        summary: 'Flag a FAQ for freshness review (any signed-in user, with a reason)',
        description:
          'Any state -> pending_review (public). A draft (staff only see one) without an answer is 422 FAQ_NO_ANSWER, as when publishing it.',
        params: IdParams,
        body: ReasonBody,
        response: { 200: Faq, ...problemResponses(404, 422) },
      },
      handler: async (request) => flagFaq(ctx, signedIn(request), request.params.id, request.body.reason),
    });
  }

  app.post(
    '/faq/:id/vote-review',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Vote still_accurate or needs_update on a FAQ pending review',
        params: IdParams,
        body: VoteBody,
        response: { 200: VoteResult, ...problemResponses(404, 422) },
      },
    },
    async (request) => voteReview(ctx, signedIn(request), request.params.id, request.body),
  );
};
