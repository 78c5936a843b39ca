import { AiAnswerStateShape as AiAnswerState, aiAnswerFeedback, voteAiAnswer } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';

const FeedbackBody = T.Object({ helpful: T.Boolean() }, { additionalProperties: false });
const VoteBody = T.Object({ value: T.Union([T.Literal(1), T.Literal(-1)]) }, { additionalProperties: false });
const tags = ['community'];
const NOTE =
  'Accountable AI answers: when the post’s author marks the published AI answer as not answering, or its votes net -2 or lower, it is ' +
  'unpublished and re-escalated to staff (aiAnswerStatus escalated, the post reopens unless a comment is accepted); the run does not ' +
  'answer the post again until its title or body changes. 422 when the post has no published AI answer.';

/** Feedback and votes on a post's published AI answer (signed in). */
export const aiAnswerRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.post(
    '/community/posts/:id/ai-answer/feedback',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "The post's author: does the AI answer answer the question?",
        description: NOTE,
        params: IdParams,
        body: FeedbackBody,
        response: { 200: AiAnswerState, ...problemResponses(404, 422) },
      },
    },
    async (request) => aiAnswerFeedback(ctx, signedIn(request), request.params.id, request.body.helpful),
  );

  app.post(
    '/community/posts/:id/ai-answer/vote',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Vote on a published AI answer (+1 or -1, one vote per user)',
        description: NOTE,
        params: IdParams,
        body: VoteBody,
        response: { 200: AiAnswerState, ...problemResponses(404, 422) },
      },
    },
    async (request) => voteAiAnswer(ctx, signedIn(request), request.params.id, request.body.value),
  );
};
