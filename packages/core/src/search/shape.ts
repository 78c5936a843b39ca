import { unresolvedSearchStatus } from '@cfaq/db/schema/index';
import { Kind, type Static, Type as T, TypeRegistry } from '@sinclair/typebox';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';
import { HYBRID_SEARCH_SOURCES, type SearchSource } from './sources.js';

/** The response shapes of search (results, trending queries, suggestions, unresolved searches): declared once here. */

// The result shape avoids anyOf (unions, Nullable): fast-json-stringify resolves anyOf with a
// validation per value, which is most of a cache hit's serialisation cost. Their own kinds let
// Value.Check (the shape test) check them as the serializer's validator would.
TypeRegistry.Set<SearchSource>(
  'SearchSource',
  (_s, v) => typeof v === 'string' && (HYBRID_SEARCH_SOURCES as readonly string[]).includes(v),
);
TypeRegistry.Set<number | null>('SearchRank', (_s, v) => v === null || (Number.isInteger(v) && (v as number) >= 1));
const SourceShape = T.Unsafe<SearchSource>({
  [Kind]: 'SearchSource',
  type: 'string',
  enum: [...HYBRID_SEARCH_SOURCES],
  description:
    "faq or community (the spec's two); POST /search also searches the knowledge base: transcript_knowledge " +
    '(meeting transcripts) and document_insight (ingested documents, upvoted answers), approved rows of the program only',
});
const Rank = T.Unsafe<number | null>({
  [Kind]: 'SearchRank',
  type: ['integer', 'null'],
  minimum: 1,
  description: '1-based rank in that list; null when absent',
});

/** One fused result (a row of the hybrid statement, hybrid-sql.ts). */
export const SearchResultShape = T.Object({
  id: Uuid,
  source: SourceShape,
  title: T.String({ description: 'FAQ question, post title or knowledge item title' }),
  snippet: T.String({ description: 'start of the answer, post body or knowledge item content' }),
  rrfScore: T.Number({ description: 'sum over the lists the document is in of 1 / (60 + rank)' }),
  textScore: T.Number({
    description:
      'keyword score in [0, 1], computed for every result (also one only the vector list found: then textRank is null); 0 when the document shares no query word',
  }),
  vectorScore: T.Number({
    description:
      'cosine similarity of the query and the document, computed for every result (also one only the keyword list found: then vectorRank is null); 0 when the document has no embedding yet',
  }),
  textRank: Rank,
  vectorRank: Rank,
});
export type SearchResult = Static<typeof SearchResultShape>;

export const SearchResponseShape = T.Object({
  results: T.Array(SearchResultShape, { maxItems: 5 }),
  /** Present (true) when the embedder failed and the ranking is text-only. */
  degraded: T.Optional(T.Literal(true, { description: 'the embedder failed: text-only ranking' })),
});
export type SearchResponse = Static<typeof SearchResponseShape>;

export const TrendingQueryShape = T.Object({ query: T.String(), count: T.Integer(), lastSearchedAt: DateTime });
export type TrendingQuery = Static<typeof TrendingQueryShape>;
export const TrendingResponseShape = T.Object({
  items: T.Array(TrendingQueryShape),
  total: T.Integer(),
  page: T.Integer(),
  limit: T.Integer(),
});
export type TrendingResponse = Static<typeof TrendingResponseShape>;

export const SuggestionShape = T.Object({
  text: T.String(),
  source: T.Union([T.Literal('faq'), T.Literal('query')]),
  faqId: Nullable(Uuid),
});
export type Suggestion = Static<typeof SuggestionShape>;
export const SuggestResponseShape = T.Object({ suggestions: T.Array(SuggestionShape) });
export type SuggestResponse = Static<typeof SuggestResponseShape>;

export const UnresolvedStatusShape = literals(unresolvedSearchStatus.enumValues);
export const UnresolvedSearchItemShape = T.Object({
  id: Uuid,
  query: T.String(),
  normalizedQuery: T.String(),
  count: T.Integer({ description: 'times this open query was logged' }),
  status: UnresolvedStatusShape,
  batchId: Nullable(Uuid),
  resolvedFaqId: Nullable(Uuid),
  resolvedBy: Nullable(Uuid),
  resolvedAt: Nullable(DateTime),
  lastSeenAt: DateTime,
  createdAt: DateTime,
});
export type UnresolvedSearchItem = Static<typeof UnresolvedSearchItemShape>;

/**
 * What POST /search/unresolved answers. The row is shared by everyone who logged the same query, so
 * its figures (count, first and last sighting) and its first searcher's spelling are shown only to an
 * admin or once the row is public (SEARCH_SUGGEST_MIN_USERS distinct searchers, as GET
 * /search/unresolved lists it). Before that `query` is the caller's own text and the figures are
 * absent, whoever else logged it or not, so the answer's shape tells nothing either.
 */
export const LoggedUnresolvedSearchShape = T.Composite([
  T.Pick(UnresolvedSearchItemShape, ['id', 'query', 'normalizedQuery', 'status', 'batchId']),
  T.Partial(T.Pick(UnresolvedSearchItemShape, ['count', 'lastSeenAt', 'createdAt'])),
]);
export type LoggedUnresolvedSearch = Static<typeof LoggedUnresolvedSearchShape>;

/** The public view of an open unresolved search: no user or admin ids. */
export const PublicUnresolvedItemShape = T.Pick(UnresolvedSearchItemShape, [
  'id',
  'query',
  'normalizedQuery',
  'count',
  'lastSeenAt',
  'createdAt',
]);

export const UnresolvedStatsShape = T.Object({
  open: T.Integer(),
  resolved: T.Integer(),
  openSearches: T.Integer({ description: 'sum of the counts of open rows' }),
  resolvedLast7Days: T.Integer(),
  top: T.Array(T.Object({ id: Uuid, query: T.String(), count: T.Integer() })),
});
export type UnresolvedStats = Static<typeof UnresolvedStatsShape>;
