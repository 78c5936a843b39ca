import { LoggedUnresolvedSearchShape, PublicUnresolvedItemShape, UnresolvedSearchItemShape } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { BatchQuery, listOf, PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';

export {
  SearchResponseShape as SearchResponse,
  SearchResultShape as SearchResult,
  SuggestResponseShape as SuggestResponse,
  TrendingResponseShape as TrendingResponse,
  UnresolvedStatsShape as UnresolvedStats,
} from '@cfaq/core';
export {
  LoggedUnresolvedSearchShape as LoggedUnresolvedSearch,
  PublicUnresolvedItemShape as PublicUnresolvedItem,
  UnresolvedSearchItemShape as UnresolvedItem,
};

// Not blank: zero-width characters alone are blank too (they were searched, logged and suggested back).
const Query = VisibleText(1, 500, { description: 'search text (normalised by trim and lower-case)' });

export const SearchBody = T.Object(
  {
    query: Query,
    batchId: T.Optional(Uuid),
    thresholds: T.Optional(T.Unknown({ description: 'accepted and ignored: the filter is fixed' })),
  },
  { additionalProperties: false },
);

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
    }),
    PageQuery,
    BatchQuery,
  ],
  { additionalProperties: false },
);

export const SuggestQuery = T.Composite(
  [
    T.Object({
      q: VisibleText(1, 100),
      limit: T.Optional(T.Integer({ minimum: 1, maximum: 20, default: 8 })),
    }),
    BatchQuery,
  ],
  { additionalProperties: false },
);

export const UnresolvedBody = T.Object({ query: Query, batchId: T.Optional(Uuid) }, { additionalProperties: false });

export const PublicUnresolvedList = listOf(PublicUnresolvedItemShape);
export const UnresolvedList = listOf(UnresolvedSearchItemShape);

export const PublicUnresolvedQuery = T.Composite([PageQuery, BatchQuery], { additionalProperties: false });
export const AdminUnresolvedQuery = T.Composite(
  [PageQuery, BatchQuery, T.Object({ status: T.Optional(T.Union([T.Literal('open'), T.Literal('resolved')])) })],
  { additionalProperties: false },
);

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
  vectorScore: T.Optional(
    T.Number({
      description:
        "the matched FAQ's vectorScore, the same score POST /search reports for it: >= 0.82, or lower when the query repeats the FAQ's question word for word",
    }),
  ),
});
