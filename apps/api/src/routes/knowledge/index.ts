import {
  answerPostFromKnowledge,
  ChatAnswerShape as Chat,
  KnowledgeItemShape as Item,
  ingestDocument,
  KnowledgeHitsShape,
  KnowledgeItemsShape,
  KnowledgeStatusShape as KStatus,
  KnowledgeTypeShape as KType,
  knowledgeChat,
  listKnowledge,
  PostChatAnswerShape,
  PromoteKnowledgeShape,
  processUpvotes,
  promoteKnowledge,
  searchKnowledgeItems,
  setKnowledgeStatus,
  UpvoteKnowledgeShape,
} from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams, listOf, PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { reprocessMeetingRoute } from '../conf/reprocess.js';
import { Answer, Question } from '../faq/schemas.js';

const tags = ['knowledge'];
const Query = T.Object({ q: VisibleText(1, 500), batchId: T.Optional(Uuid) }, { additionalProperties: false });

/** The knowledge base (TranscriptKnowledge and DocumentInsight): admin only. */
export const knowledgeRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/knowledge',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Knowledge items (transcript knowledge and document insights), newest first',
        querystring: T.Composite(
          [
            PageQuery,
            T.Object({
              type: T.Optional(KType),
              status: T.Optional(KStatus),
              batchId: T.Optional(Uuid),
              meetingId: T.Optional(Uuid),
              q: T.Optional(T.String({ maxLength: 200 })),
            }),
          ],
          { additionalProperties: false },
        ),
        response: { 200: listOf(Item) },
      },
    },
    async (request) => listKnowledge(ctx, request.query),
  );

  app.get(
    '/knowledge/search',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Searches the program's approved knowledge by meaning (score = cosine similarity)",
        querystring: T.Composite([Query, T.Object({ limit: T.Optional(T.Integer({ minimum: 1, maximum: 50, default: 5 })) })], {
          additionalProperties: false,
        }),
        response: { 200: KnowledgeHitsShape, ...problemResponses(404, 503) },
      },
    },
    async (request) => searchKnowledgeItems(ctx, request.query),
  );

  app.post(
    '/knowledge/ingest',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'A text document becomes approved DocumentInsight rows with embeddings (parts of about 1,500 characters)',
        body: T.Object(
          {
            // Not blank: the title is each part's title, and a promoted part's default FAQ question.
            title: VisibleText(1, 300),
            content: VisibleText(1, 200_000),
            sourceRef: T.Optional(T.String({ maxLength: 2000 })),
            batchId: T.Optional(Uuid),
          },
          { additionalProperties: false },
        ),
        response: { 201: KnowledgeItemsShape, ...problemResponses(404, 422, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await ingestDocument(ctx, signedIn(request), request.body)),
  );

  app.get(
    '/knowledge/chat',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Answers a question from the knowledge base through the AI provider, citing its sources; "I don\'t know" when nothing relevant',
        querystring: Query,
        response: { 200: Chat, ...problemResponses(404, 503) },
      },
    },
    async (request) => knowledgeChat(ctx, request.query),
  );

  for (const action of ['approve', 'reject'] as const) {
    app.put(
      `/knowledge/:id/${action}`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary:
            action === 'approve'
              ? 'Approve: pending_review or rejected -> approved (searchable); a promoted item is 422, and so is one made from a community answer whose post was deleted (KNOWLEDGE_SOURCE_DELETED)'
              : 'Reject: pending_review or approved -> rejected (leaves the searches); a promoted item is 422',
          params: IdParams,
          response: { 200: Item, ...problemResponses(404, 422) },
        },
      },
      async (request) => setKnowledgeStatus(ctx, signedIn(request), request.params.id, action === 'approve' ? 'approved' : 'rejected'),
    );
  }

  app.put(
    '/knowledge/:id/promote',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Promote: the item becomes FAQ content and links it (status promoted, promotedFaqId): it updates the FAQ it matches closely (or faqId), else creates an approved FAQ; 409 when promoted already, 422 when rejected',
        params: IdParams,
        body: T.Object(
          {
            // POST /faq's rules: a promoted item is a published FAQ.
            question: T.Optional(Question),
            answer: T.Optional(Answer),
            category: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
            faqId: T.Optional(
              T.Union([Uuid, T.Null()], {
                description:
                  'the FAQ to update; null: always create a new FAQ; absent: follow the proposal (proposedFaqId, recomputed now)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: PromoteKnowledgeShape, ...problemResponses(404, 409, 422) },
      },
    },
    async (request) => promoteKnowledge(ctx, signedIn(request), request.params.id, request.body),
  );

  app.post(
    '/knowledge/process-upvotes',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Accepted or verified community answers with at least 3 upvotes on a live post become approved knowledge (once each: knowledge withdrawn when its post was deleted is not made again)',
        querystring: T.Object(
          { minUpvotes: T.Optional(T.Integer({ minimum: 1, maximum: 10_000 })), batchId: T.Optional(Uuid) },
          { additionalProperties: false },
        ),
        response: { 200: UpvoteKnowledgeShape, ...problemResponses(503) },
      },
    },
    async (request) => processUpvotes(ctx, request.query, signedIn(request)),
  );

  reprocessMeetingRoute(
    app,
    '/knowledge/process-meeting/:id',
    tags,
    'Re-processes a meeting into knowledge and insights (same as POST /conf/meetings/:id/transcript)',
  );

  app.post(
    '/knowledge/answer-from-knowledge/:postId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          "An answer to a community post from the knowledge base (as /knowledge/chat with the post's title and body); nothing is written",
        params: T.Object({ postId: Uuid }),
        response: { 200: PostChatAnswerShape, ...problemResponses(404, 503) },
      },
    },
    async (request) => answerPostFromKnowledge(ctx, request.params.postId),
  );
};
