import {
  acceptComment,
  addComment,
  convertPostToFaq,
  createPost,
  deletePost,
  getPost,
  listComments,
  listPosts,
  resolvePost,
  reviewQueue,
  setCommentDna,
  updatePost,
  verifyComment,
  voteComment,
  votePost,
} from '@cfaq/core';
import { actorOf, signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { IdParams, ItemPageQuery, listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { BatchPageQuery, ReviewQueueItem } from '../faq/schemas.js';
import {
  AcceptResult,
  Comment,
  CommentBody,
  CommentParams,
  ConvertBody,
  ConvertResult,
  CreatePostBody,
  ListPostsQuery,
  Post,
  UpdatePostBody,
  VoteOutcome,
} from './schemas.js';

const tags = ['community'];
const ownerOrStaff = problemResponses(404, 422);

/** Community posts, comments, votes, answers, conversion to FAQs, and the public FAQ review queue. */
export const communityRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/community/posts',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "A page of the program's posts",
        querystring: ListPostsQuery,
        response: { 200: listOf(Post), ...problemResponses(404) },
      },
    },
    async (request) => listPosts(ctx, actorOf(request), request.query),
  );

  app.get(
    '/community/posts/:id',
    {
      config: { access: 'public' },
      schema: { tags, summary: 'One post', params: IdParams, response: { 200: Post, ...problemResponses(404) } },
    },
    async (request) => getPost(ctx, actorOf(request), request.params.id),
  );

  app.post(
    '/community/posts',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Ask the community',
        body: CreatePostBody,
        response: { 201: Post, ...problemResponses(404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createPost(ctx, signedIn(request), request.body)),
  );

  app.put(
    '/community/posts/:id',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Edit a post (author or staff)',
        params: IdParams,
        body: UpdatePostBody,
        response: { 200: Post, ...ownerOrStaff },
      },
    },
    async (request) => updatePost(ctx, signedIn(request), request.params.id, request.body),
  );

  app.delete(
    '/community/posts/:id',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a post (soft; author or staff); knowledge made from its answers is withdrawn (rejected) with it',
        params: IdParams,
        response: { 204: { type: 'null' }, ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      await deletePost(ctx, signedIn(request), request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    '/community/posts/:id/resolve',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Mark a post answered (author or staff)', params: IdParams, response: { 200: Post, ...ownerOrStaff } },
    },
    async (request) => resolvePost(ctx, signedIn(request), request.params.id),
  );

  for (const [dir, value] of [
    ['upvote', 1],
    ['downvote', -1],
  ] as const) {
    app.post(
      `/community/posts/:id/${dir}`,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary: `${dir === 'upvote' ? 'Upvote' : 'Downvote'} a post (again the same way removes the vote)`,
          params: IdParams,
          response: { 200: VoteOutcome, ...problemResponses(404) },
        },
      },
      async (request) => votePost(ctx, signedIn(request), request.params.id, value),
    );
    app.put(
      `/community/posts/:id/comments/:cid/${dir}`,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary: `${dir === 'upvote' ? 'Upvote' : 'Downvote'} a comment (again the same way removes the vote)`,
          params: CommentParams,
          response: { 200: VoteOutcome, ...problemResponses(404) },
        },
      },
      async (request) => voteComment(ctx, signedIn(request), request.params.id, request.params.cid, value),
    );
  }

  app.post(
    '/community/posts/:id/comments',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Comment on a post',
        params: IdParams,
        body: CommentBody,
        response: { 201: Comment, ...problemResponses(404, 422) },
      },
    },
    async (request, reply) => reply.status(201).send(await addComment(ctx, signedIn(request), request.params.id, request.body.body)),
  );

  app.get(
    '/community/posts/:id/comments',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "A post's comments: accepted, then verified, then oldest first",
        params: IdParams,
        querystring: ItemPageQuery,
        response: { 200: listOf(Comment), ...problemResponses(404) },
      },
    },
    async (request) => listComments(ctx, actorOf(request), request.params.id, request.query),
  );

  for (const [method, dna] of [
    ['PUT', true],
    ['DELETE', false],
  ] as const) {
    app.route({
      method,
      url: '/community/posts/:id/comments/:cid/dna',
      config: { access: 'user' },
      schema: {
        tags,
        summary: dna ? 'Mark a comment "does not answer" (post author or staff)' : 'Remove the "does not answer" mark',
        params: CommentParams,
        response: { 200: Comment, ...ownerOrStaff },
      },
      handler: async (request) => setCommentDna(ctx, signedIn(request), request.params.id, request.params.cid, dna),
    });
  }

  app.put(
    '/community/posts/:id/comments/:cid/verify',
    {
      config: { access: 'staff' },
      schema: {
        tags,
        summary: 'Mark a comment as a verified-correct answer',
        params: CommentParams,
        response: { 200: Comment, ...problemResponses(404) },
      },
    },
    async (request) => verifyComment(ctx, signedIn(request), request.params.id, request.params.cid),
  );

  app.put(
    '/community/posts/:id/comments/:cid/accept',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Accept a comment as the answer (post author or staff)',
        params: CommentParams,
        response: { 200: AcceptResult, ...ownerOrStaff },
      },
    },
    async (request) => acceptComment(ctx, signedIn(request), request.params.id, request.params.cid),
  );

  app.post(
    '/community/posts/:id/convert',
    {
      config: { access: 'staff' },
      schema: {
        tags,
        summary: 'Convert a post into an approved FAQ',
        params: IdParams,
        body: ConvertBody,
        response: { 201: ConvertResult, ...problemResponses(404, 409, 422) },
      },
    },
    async (request, reply) => reply.status(201).send(await convertPostToFaq(ctx, signedIn(request), request.params.id, request.body)),
  );

  app.get(
    '/community/review-queue',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'FAQs under freshness review (pending_review, update_requested) with the current vote tally',
        querystring: BatchPageQuery,
        response: { 200: listOf(ReviewQueueItem), ...problemResponses(404) },
      },
    },
    async (request) => reviewQueue(ctx, actorOf(request), request.query),
  );
};
