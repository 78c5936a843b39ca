import {
  adminListUnresolved,
  listOpenUnresolved,
  logUnresolvedSearch,
  resolveUnresolvedSearch,
  type SearchSource,
  suggestSearches,
  trendingSearches,
  unresolvedStats,
} from '@cfaq/core';
import type { FastifyRequest } from 'fastify';
import { actorOf, signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { BatchQuery, IdParams } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import {
  AdminUnresolvedQuery,
  DuplicateBody,
  DuplicateResponse,
  LoggedUnresolvedSearch,
  PublicUnresolvedList,
  PublicUnresolvedQuery,
  ResolveBody,
  SearchBody,
  SearchQuery,
  SearchResponse,
  SuggestQuery,
  SuggestResponse,
  TrendingQuery,
  TrendingResponse,
  UnresolvedBody,
  UnresolvedItem,
  UnresolvedList,
  UnresolvedStats,
} from './schemas.js';

/**
 * Search routes: the hybrid pipeline (POST /search), single-source and semantic searches, trending,
 * suggestions, unresolved searches, and the duplicate check under /faq. The search service (result
 * cache and buffered search log) is plugins/search.ts.
 */
export const searchRoutes: RoutePlugin = async (app) => {
  const search = app.searchService;
  const serialized = new WeakMap<object, Buffer>();
  const callerId = (r: FastifyRequest) => actorOf(r)?.id ?? null;

  app.post(
    '/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['search'],
        summary: 'Hybrid search: vector + keyword over FAQs, posts and the knowledge base, fused by RRF (k = 60), at most 5 results',
        description:
          "The spec's pipeline (a vector and a keyword list of 5 over FAQs and over posts, RRF k = 60, kept when textScore > 0 " +
          'or vectorScore >= 0.80, at most 5) with the knowledge base as two more sources of the same fusion: approved ' +
          'TranscriptKnowledge and DocumentInsight rows of the program (source transcript_knowledge / document_insight), ' +
          'a vector and a keyword list of 5 each. Pending, rejected and promoted knowledge never appears. A program without ' +
          'knowledge rows gets exactly the FAQ/post ranking.',
        body: SearchBody,
        response: { 200: SearchResponse, ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      const res = await search.search({
        query: request.body.query,
        batchId: request.body.batchId,
        userId: callerId(request),
        clientIp: request.ip,
      });
      // A cache hit returns the cached results array itself: its encoded JSON is kept beside it, so a
      // hit costs no serialisation or UTF-8 encoding (the shape is the declared SearchResponse; the
      // core builds it).
      let body = serialized.get(res.results);
      if (body === undefined) {
        body = Buffer.from(JSON.stringify(res));
        serialized.set(res.results, body);
      }
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  // GET /search, /faq/search and /community/search: one hybrid statement over their sources. Hybrid, not
  // vector only: with textScore 0 on every row the spec's fixed filter left only vectorScore >= 0.80,
  // which the default embedder's true matches rarely reach (GET /search answered [] where POST found
  // the FAQ sharing the query's words). Logged as searches people made, except a HEAD request.
  const getSearches: [string, string, SearchSource[]][] = [
    [
      '/search',
      'Search over FAQs and posts by meaning and words (the hybrid statement without the knowledge base; same shape and filter)',
      ['faq', 'community'],
    ],
    ['/faq/search', 'Search FAQs: vector + keyword over FAQs only, fused by RRF', ['faq']],
    ['/community/search', 'Search community posts: vector + keyword over posts only, fused by RRF', ['community']],
  ];
  for (const [path, summary, sources] of getSearches) {
    app.get(
      path,
      {
        config: { access: 'public' },
        schema: { tags: ['search'], summary, querystring: SearchQuery, response: { 200: SearchResponse, ...problemResponses(404) } },
      },
      async (request) =>
        search.searchSources({
          query: request.query.q,
          batchId: request.query.batchId,
          userId: callerId(request),
          clientIp: request.ip,
          log: request.method !== 'HEAD',
          sources,
          modes: ['vector', 'text'],
        }),
    );
  }

  for (const path of ['/faq/check-match', '/faq/check-duplicate']) {
    app.post(
      path,
      {
        config: { access: 'public' },
        schema: {
          tags: ['search'],
          summary: 'Duplicate check before posting: a vector search over FAQs, matched when the nearest FAQ scores vectorScore >= 0.82',
          description:
            'Matched when the nearest of 5 FAQs (by vectorScore) scores >= 0.82 and stands at least 0.02 above the nearest FAQ asking a ' +
            'different question (a near tie between two questions means the query is about their topic, not a repeat of either; ' +
            'from 0.88 up the nearest matches whatever its neighbours score), ' +
            'or when a candidate FAQ asks the query word for word (case, punctuation and spacing aside), whatever its score.',
          body: DuplicateBody,
          response: { 200: DuplicateResponse, ...problemResponses(404, 503) },
        },
      },
      async (request) => search.checkDuplicate(request.body),
    );
  }

  app.get(
    '/search/trending',
    {
      config: { access: 'public' },
      schema: {
        tags: ['search'],
        summary:
          'Most searched normalised queries of the program over the last `days` days, among those SEARCH_SUGGEST_MIN_USERS (default 3) distinct users or clients searched',
        querystring: TrendingQuery,
        response: { 200: TrendingResponse, ...problemResponses(404) },
      },
    },
    async (request) => trendingSearches(app.ctx, request.query),
  );

  app.get(
    '/search/suggest',
    {
      config: { access: 'public', rateLimit: app.limits.searchSuggest },
      schema: {
        tags: ['search'],
        summary:
          'Typeahead: FAQ questions with a word starting with q, then past queries that SEARCH_SUGGEST_MIN_USERS (default 3) distinct users or clients searched (30 per minute)',
        querystring: SuggestQuery,
        response: { 200: SuggestResponse, ...problemResponses(404) },
      },
    },
    async (request) => suggestSearches(app.ctx, request.query),
  );

  app.post(
    '/search/unresolved',
    {
      config: { access: 'public' },
      schema: {
        tags: ['search'],
        summary: 'Log a search that found no answer (repeats count up on the open row)',
        description:
          "The row is shared by everyone who logged the same query. Its count, first and last sighting and first searcher's spelling are answered only to an admin or once SEARCH_SUGGEST_MIN_USERS distinct searchers logged it (the public list shows it then); before that `query` is the caller's own text and those fields are absent, whether or not anyone else logged it, so nobody learns what someone else searched.",
        body: UnresolvedBody,
        response: { 201: LoggedUnresolvedSearch, ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      const caller = actorOf(request);
      const logged = await logUnresolvedSearch(app.ctx, {
        ...request.body,
        userId: caller?.id ?? null,
        clientIp: request.ip,
        viewerIsAdmin: caller?.role === 'admin',
      });
      return reply.status(201).send(logged);
    },
  );

  app.get(
    '/search/unresolved',
    {
      config: { access: 'public' },
      schema: {
        tags: ['search'],
        summary:
          "The program's open unresolved searches that SEARCH_SUGGEST_MIN_USERS (default 3) distinct users or clients logged, most frequent first (no user ids)",
        querystring: PublicUnresolvedQuery,
        response: { 200: PublicUnresolvedList, ...problemResponses(404) },
      },
    },
    async (request) => listOpenUnresolved(app.ctx, request.query),
  );

  app.get(
    '/search/unresolved-list',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['search'],
        summary: 'Admin: unresolved searches of every program (or ?batchId=), open and resolved (or ?status=)',
        querystring: AdminUnresolvedQuery,
        response: { 200: UnresolvedList, ...problemResponses(404) },
      },
    },
    async (request) => adminListUnresolved(app.ctx, request.query),
  );

  app.get(
    '/search/unresolved-stats',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['search'],
        summary: 'Admin: counts of open and resolved unresolved searches and the top open ones',
        querystring: BatchQuery,
        response: { 200: UnresolvedStats, ...problemResponses(404) },
      },
    },
    async (request) => unresolvedStats(app.ctx, request.query),
  );

  app.post(
    '/search/unresolved/:id/resolve',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['search'],
        summary: 'Admin: mark an open unresolved search resolved, optionally naming the FAQ that answers it',
        params: IdParams,
        body: ResolveBody,
        response: { 200: UnresolvedItem, ...problemResponses(404, 422) },
      },
    },
    async (request) =>
      resolveUnresolvedSearch(app.ctx, {
        id: request.params.id,
        faqId: request.body?.faqId,
        adminId: signedIn(request).id,
      }),
  );
};
