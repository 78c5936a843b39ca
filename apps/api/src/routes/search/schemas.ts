import { HYBRID_SEARCH_SOURCES, type SearchSource } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { BatchQuery, DateTime, listOf, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';

const Query = T.String({
  minLength: 1,
  maxLength: 500,
  pattern: '\\S',
  description: 'search text, not blank (normalised by trim and lower-case)',
});

export const SearchBody = T.Object(
  {
    query: Query,
    batchId: T.Optional(Uuid),
    thresholds: T.Optional(T.Unknown({ description: 'accepted and ignored: the filter is fixed' })),
  },
  { additionalProperties: false },
);

// The result schema avoids anyOf (unions, Nullable): fast-json-stringify resolves anyOf with a
// validation per value, which is most of a cache hit's serialisation cost.
const Source = T.Unsafe<SearchSource>({
  type: 'string',
  enum: [...HYBRID_SEARCH_SOURCES],
  description:
    "faq or community (the spec's two); POST /search also searches the knowledge base: transcript_knowledge " +
    '(meeting transcripts) and document_insight (ingested documents, upvoted answers), approved rows of the program only',
});
const Rank = T.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, description: '1-based rank in that list; null when absent' });

export const SearchResult = T.Object({
  id: Uuid,
  source: Source,
  title: T.String({ description: 'FAQ question, post title or knowledge item title' }),
  snippet: T.String({ description: 'start of the answer, post body or knowledge item content' }),
  rrfScore: T.Number({ description: 'sum over the lists the document is in of 1 / (60 + rank)' }),
  textScore: T.Number({ description: 'keyword score in (0, 1]; 0 when not in the keyword list' }),
  vectorScore: T.Number({ description: 'cosine similarity; 0 when not in the vector list' }),
  textRank: Rank,
  vectorRank: Rank,
});

export const SearchResponse = T.Object({
  results: T.Array(SearchResult, { maxItems: 5 }),
  degraded: T.Optional(T.Literal(true, { description: 'the embedder failed: text-only ranking' })),
});

/**
 * GET searches take `thresholds` like POST /search and ignore it, in whatever form a client sends it
 * (`thresholds=...`, `thresholds[vector]=...`, repeated).
 */
export const SearchQuery = T.Composite(
  [
    T.Object({
      q: Query,
      thresholds: T.Optional(T.Unknown({ description: 'accepted and ignored (also as thresholds[...]): the filter is fixed' })),
    }),
    BatchQuery,
  ],
  { additionalProperties: false, patternProperties: { '^thresholds\\[[^\\]]*\\]': {} } },
);

export const TrendingQuery = T.Composite(
  [
    T.Object({
      days: T.Optional(T.Integer({ minimum: 1, maximum: 90, default: 7 })),
      limit: T.Optional(T.Integer({ minimum: 1, maximum: 50, default: 10 })),
    }),
    BatchQuery,
  ],
  { additionalProperties: false },
);
export const TrendingResponse = T.Object({
  items: T.Array(T.Object({ query: T.String(), count: T.Integer(), lastSearchedAt: DateTime })),
});

export const SuggestQuery = T.Composite(
  [
    T.Object({ q: T.String({ minLength: 1, maxLength: 100 }), limit: T.Optional(T.Integer({ minimum: 1, maximum: 20, default: 8 })) }),
    BatchQuery,
  ],
  { additionalProperties: false },
);
export const SuggestResponse = T.Object({
  suggestions: T.Array(T.Object({ text: T.String(), source: T.Union([T.Literal('faq'), T.Literal('query')]), faqId: Nullable(Uuid) })),
});

export const UnresolvedBody = T.Object({ query: Query, batchId: T.Optional(Uuid) }, { additionalProperties: false });

export const UnresolvedItem = T.Object({
  id: Uuid,
  query: T.String(),
  normalizedQuery: T.String(),
  count: T.Integer({ description: 'times this open query was logged' }),
  status: T.Union([T.Literal('open'), T.Literal('resolved')]),
  batchId: Nullable(Uuid),
  resolvedFaqId: Nullable(Uuid),
  resolvedBy: Nullable(Uuid),
  resolvedAt: Nullable(DateTime),
  lastSeenAt: DateTime,
  createdAt: DateTime,
});

/** The public view of an open unresolved search: no user or admin ids. */
export const PublicUnresolvedItem = T.Pick(UnresolvedItem, ['id', 'query', 'normalizedQuery', 'count', 'lastSeenAt', 'createdAt']);

export const PublicUnresolvedList = listOf(PublicUnresolvedItem);
export const UnresolvedList = listOf(UnresolvedItem);

export const PublicUnresolvedQuery = T.Composite([PageQuery, BatchQuery], { additionalProperties: false });
export const AdminUnresolvedQuery = T.Composite(
  [PageQuery, BatchQuery, T.Object({ status: T.Optional(T.Union([T.Literal('open'), T.Literal('resolved')])) })],
  { additionalProperties: false },
);

export const UnresolvedStats = T.Object({
  open: T.Integer(),
  resolved: T.Integer(),
  openSearches: T.Integer({ description: 'sum of the counts of open rows' }),
  resolvedLast7Days: T.Integer(),
  top: T.Array(T.Object({ id: Uuid, query: T.String(), count: T.Integer() })),
});

export const ResolveBody = T.Object(
  { faqId: T.Optional(Uuid) },
  { additionalProperties: false, description: 'faqId: the FAQ that answers it, when there is one (resolving without one is common)' },
);

export const DuplicateBody = T.Object(
  { query: T.String({ maxLength: 500, description: 'at least 10 characters after trimming' }), batchId: T.Optional(Uuid) },
  { additionalProperties: false },
);
export const DuplicateResponse = T.Object({
  matched: T.Boolean(),
  faq: T.Optional(T.Object({ id: Uuid, question: T.String() })),
  vectorScore: T.Optional(T.Number({ description: "the nearest FAQ's vectorScore, the same score POST /search reports for it (>= 0.82)" })),
});
