import {
  answerPostFromKnowledge,
  FAQ_UPDATE_THRESHOLD,
  ingestDocument,
  knowledgeChat,
  listKnowledge,
  processUpvotes,
  promoteKnowledge,
  reprocessMeeting,
  searchKnowledgeItems,
  setKnowledgeStatus,
} from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { DateTime, IdParams, listOf, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { FaqAction, Meeting } from '../conf/schemas.js';
import { Faq } from '../faq/schemas.js';

const tags = ['knowledge'];
const KType = T.Union([T.Literal('transcript'), T.Literal('document')]);
const KStatus = T.Union([T.Literal('pending_review'), T.Literal('approved'), T.Literal('rejected'), T.Literal('promoted')]);
const Item = T.Object({
  id: Uuid,
  type: KType,
  title: T.String(),
  content: T.String(),
  status: KStatus,
  batchId: Nullable(Uuid),
  meetingId: Nullable(Uuid),
  sourceType: T.String(),
  sourceRef: Nullable(T.String()),
  promotedFaqId: Nullable(Uuid),
  proposedFaqId: T.Union([Uuid, T.Null()], {
    description: `"update FAQ X": an existing FAQ of the program this item matches closely (cosine >= ${FAQ_UPDATE_THRESHOLD}, both embedded as title + body); promote updates it by default. Null: promote creates a new FAQ`,
  }),
  proposedFaqScore: Nullable(T.Number({ description: 'the similarity to proposedFaqId' })),
  embedded: T.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
const Hit = T.Object({
  id: Uuid,
  sourceType: T.Union([T.Literal('transcript_knowledge'), T.Literal('document_insight')]),
  title: T.String(),
  content: T.String(),
  score: T.Number(),
  meetingId: Nullable(Uuid),
});
const Chat = T.Object({
  answered: T.Boolean(),
  answer: T.String(),
  sources: T.Array(T.Object({ id: Uuid, type: KType, title: T.String(), score: T.Number() })),
  reason: T.Optional(T.String()),
});
const Query = T.Object({ q: T.String({ minLength: 1, maxLength: 500 }), batchId: T.Optional(Uuid) });

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
        querystring: T.Composite([
          PageQuery,
          T.Object({
            type: T.Optional(KType),
            status: T.Optional(KStatus),
            batchId: T.Optional(Uuid),
            meetingId: T.Optional(Uuid),
            q: T.Optional(T.String({ maxLength: 200 })),
          }),
        ]),
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
        querystring: T.Composite([Query, T.Object({ limit: T.Optional(T.Integer({ minimum: 1, maximum: 50, default: 5 })) })]),
        response: { 200: T.Object({ results: T.Array(Hit) }), ...problemResponses(404, 503) },
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
            title: T.String({ minLength: 1, maxLength: 300 }),
            content: T.String({ minLength: 1, maxLength: 200_000 }),
            sourceRef: T.Optional(T.String({ maxLength: 2000 })),
            batchId: T.Optional(Uuid),
          },
          { additionalProperties: false },
        ),
        response: { 201: T.Object({ items: T.Array(Item) }), ...problemResponses(404, 422) },
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
              ? 'Approve: pending_review or rejected -> approved (searchable); a promoted item is 422'
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
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary:
          'Promote: the item becomes FAQ content and links it (status promoted, promotedFaqId): it updates the FAQ it matches closely (or faqId), else creates an approved FAQ; 409 when promoted already, 422 when rejected',
        params: IdParams,
        body: T.Object(
          {
            question: T.Optional(T.String({ minLength: 3, maxLength: 1000 })),
            answer: T.Optional(T.String({ minLength: 1, maxLength: 20_000 })),
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
        response: { 200: T.Object({ faq: Faq, item: Item, action: FaqAction }), ...problemResponses(404, 409, 422) },
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
        summary: 'Accepted or verified community answers with at least 3 upvotes become approved knowledge (once each)',
        querystring: T.Object({ minUpvotes: T.Optional(T.Integer({ minimum: 1, maximum: 10_000 })), batchId: T.Optional(Uuid) }),
        response: { 200: T.Object({ created: T.Integer(), items: T.Array(Item) }) },
      },
    },
    async (request) => processUpvotes(ctx, request.query),
  );

  app.post(
    '/knowledge/process-meeting/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Re-processes a meeting into knowledge and insights (same as POST /conf/meetings/:id/transcript)',
        params: IdParams,
        response: { 202: Meeting, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => reply.status(202).send(await reprocessMeeting(ctx, request.params.id)),
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
        response: { 200: T.Composite([Chat, T.Object({ postId: Uuid })]), ...problemResponses(404, 503) },
      },
    },
    async (request) => answerPostFromKnowledge(ctx, request.params.postId),
  );
};
