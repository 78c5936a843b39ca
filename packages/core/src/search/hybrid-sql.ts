import type { SearchResult } from './shape.js';
import { type SearchSource, SOURCE_TABLES, type SourceTable } from './sources.js';
import { bm25Terms, textCte } from './text-sql.js';
import {
  DEFAULT_TEXT_TUNING,
  MAX_RESULTS,
  PER_LIST,
  RRF_K,
  SNIPPET_CHARS,
  TEXT_LIST_MIN_SCORE,
  type TextTuning,
  VECTOR_CUTOFF,
} from './tuning.js';

/**
 * The hybrid search statement: one SQL statement with a vector and a text sub-search (5 rows each) per
 * source, fused by Reciprocal Rank Fusion. The spec's pipeline is four: FAQs and community posts (the
 * default); POST /search adds the knowledge base's two tables as sources of their own (sources.ts).
 *
 * Vector side: each nearest-neighbour CTE is `ORDER BY embedding <=> $2 LIMIT 5` over one table,
 * MATERIALIZED, with the program filter inside; with `hnsw.iterative_scan = relaxed_order` set on the
 * connection (see `prepareSearchConnection` in hybrid-runner.ts) the HNSW index keeps scanning until 5 rows pass the
 * filter. Relaxed order is restored by ranking on the distance outside the index scan.
 *
 * Text side: the query is parsed with `websearch_to_tsquery('english', ...)` (the generated columns'
 * configuration) and its non-negated lexemes are matched with OR semantics, so a natural-language
 * question matches documents that share any meaningful word, ranked by BM25 (see `textCte` in text-sql.ts). Word
 * statistics come from the planner's (pg_stats.most_common_elems of the tsvector column, kept by
 * ANALYZE, as copied into search_lexeme_stats by the worker's search.lexeme-stats job) or, while the
 * query's words sit in few rows or there are no statistics yet, from counting the matching rows.
 * Cost stays bounded by choosing candidates where the ranking can place them first (see
 * `textCandidates` in text-sql.ts): a common word alone never drives a match over the whole text, where it sits in
 * thousands of rows, and at most TEXT_CANDIDATE_CAP rows per tier are scored.
 */

export type SearchMode = 'vector' | 'text';

/** The statement's variants that production runs (and caches: see hybrid-runner.ts). */
export interface HybridSqlOptions {
  sources?: readonly SearchSource[];
  modes?: readonly SearchMode[];
  /** Keep only textScore > 0 or vectorScore >= 0.80 (the spec's fixed filter). */
  filter?: boolean;
  limit?: number;
}

/** A row of the statement: the search result shape (shape.ts). */
export type HybridRow = SearchResult;

function vectorCte(t: SourceTable): string {
  const a = `${t.alias}_v`;
  return `${a}_nn AS MATERIALIZED (
    SELECT id, embedding <=> $2::vector AS dist FROM ${t.table}
    WHERE ${t.visible} AND embedding IS NOT NULL
    ORDER BY embedding <=> $2::vector LIMIT ${PER_LIST}
  ),
  ${a} AS MATERIALIZED (
    SELECT id, 1 - dist AS score, row_number() OVER (ORDER BY dist, id) AS rank FROM ${a}_nn
  )`;
}

/**
 * The keyword score of the vector list's rows that the keyword list did not rank: the same BM25, for
 * at most PER_LIST rows. It adds no rank (RRF is unchanged); it makes a result's textScore its real
 * keyword relevance, so the spec's fixed filter (textScore > 0 or vectorScore >= 0.80) keeps a nearest
 * neighbour that shares a word with the query although five others ranked above it by keyword. With
 * textScore 0 for every row outside the keyword top 5, the filter dropped most of what the vector side
 * alone found: on bench/relevance the fused Hit@5 sat at the keyword list's (71 against the vector
 * list's 85).
 */
function vectorTextCte(t: SourceTable): string {
  const a = `${t.alias}_t`;
  return `${t.alias}_vt AS MATERIALIZED (
    SELECT v.id, s.score
    FROM ${t.alias}_v v JOIN ${t.table} x ON x.id = v.id CROSS JOIN LATERAL (${bm25Terms(a, 'x.search_vector')}) s
    WHERE v.id NOT IN (SELECT id FROM ${a})
  )`;
}

/**
 * The other way round: the cosine similarity of the keyword list's rows that the vector list did not
 * rank (at most PER_LIST, read by primary key). No rank either; `vectorScore` is then every result's
 * real similarity (what the duplicate check compares with 0.82), and RRF ties between a keyword-only
 * and a vector-only row are broken on both rows' real textScore + vectorScore.
 */
function textVectorCte(t: SourceTable): string {
  return `${t.alias}_tv AS MATERIALIZED (
    SELECT x.id, 1 - (x.embedding <=> $2::vector) AS score
    FROM ${t.alias}_t k JOIN ${t.table} x ON x.id = k.id
    WHERE x.embedding IS NOT NULL AND k.id NOT IN (SELECT id FROM ${t.alias}_v)
  )`;
}

/**
 * Builds the statement (pure: no database access). Parameters: $1 normalised query, $2 query embedding
 * (pgvector text), $3 program id. `tuning` is for the benchmarks and tests; production runs the defaults.
 */
export function buildHybridSql(opts: HybridSqlOptions = {}, tuning: Readonly<TextTuning> = DEFAULT_TEXT_TUNING): string {
  const sources = opts.sources ?? ['faq', 'community'];
  const modes = opts.modes ?? ['vector', 'text'];
  const ctes: string[] = [];
  const lists: string[] = [];
  if (modes.includes('text')) {
    ctes.push(`qlex AS MATERIALIZED (
    SELECT DISTINCT m[2] AS lex
    FROM regexp_matches(websearch_to_tsquery('english', $1)::text, '(!?)''((?:[^'']|'''')+)''', 'g') AS m
    WHERE m[1] = '' AND m[2] !~ '[''\\\\]'
    LIMIT 16
  )`);
  }
  for (const s of sources) {
    const t = SOURCE_TABLES[s];
    if (modes.includes('vector')) {
      ctes.push(vectorCte(t));
      lists.push(`SELECT '${s}'::text AS source, id, 'v'::text AS kind, score, rank FROM ${t.alias}_v`);
    }
    if (modes.includes('text')) {
      // Beside a vector list, the keyword list keeps only rows matching a fair share of the query.
      ctes.push(textCte(t, tuning, modes.includes('vector') ? TEXT_LIST_MIN_SCORE : 0));
      lists.push(`SELECT '${s}'::text AS source, id, 't'::text AS kind, score, rank FROM ${t.alias}_t`);
    }
    if (modes.includes('text') && modes.includes('vector')) {
      ctes.push(vectorTextCte(t), textVectorCte(t));
      lists.push(`SELECT '${s}'::text AS source, id, 'x'::text AS kind, score, NULL::bigint AS rank FROM ${t.alias}_vt WHERE score > 0`);
      lists.push(`SELECT '${s}'::text AS source, id, 'y'::text AS kind, score, NULL::bigint AS rank FROM ${t.alias}_tv`);
    }
  }
  // Keep every parameter referenced so each variant takes the same three.
  if (!modes.includes('vector')) ctes.push('unused_vec AS (SELECT $2::text AS v)');
  if (!modes.includes('text')) ctes.push('unused_query AS (SELECT $1::text AS q)');
  const filter = opts.filter ?? true;
  const limit = opts.limit ?? MAX_RESULTS;
  const join = sources
    .map((s) => {
      const t = SOURCE_TABLES[s];
      return `LEFT JOIN ${t.table} ${t.alias} ON fused.source = '${s}' AND ${t.alias}.id = fused.id`;
    })
    .join('\n  ');
  const pick = (col: 'title' | 'body') => sources.map((s) => `${SOURCE_TABLES[s].alias}.${SOURCE_TABLES[s][col]}`).join(', ');
  return `WITH ${ctes.join(',\n  ')},
  lists AS (
    ${lists.join('\n    UNION ALL\n    ')}
  ),
  fused AS (
    SELECT source, id,
      sum(1.0 / (${RRF_K} + rank))::float8 AS rrf_score,
      coalesce(max(score) FILTER (WHERE kind IN ('t', 'x')), 0)::float8 AS text_score,
      coalesce(max(score) FILTER (WHERE kind IN ('v', 'y')), 0)::float8 AS vector_score,
      max(rank) FILTER (WHERE kind = 't')::int AS text_rank,
      max(rank) FILTER (WHERE kind = 'v')::int AS vector_rank
    FROM lists GROUP BY source, id
  )
  SELECT fused.id, fused.source, coalesce(${pick('title')}) AS title,
    left(coalesce(${pick('body')}), ${SNIPPET_CHARS}) AS snippet,
    fused.rrf_score AS "rrfScore", fused.text_score AS "textScore", fused.vector_score AS "vectorScore",
    fused.text_rank AS "textRank", fused.vector_rank AS "vectorRank"
  FROM fused
  ${join}
  ${filter ? `WHERE fused.text_score > 0 OR fused.vector_score >= ${VECTOR_CUTOFF}` : ''}
  ORDER BY fused.rrf_score DESC, fused.text_score + fused.vector_score DESC, fused.source, fused.id
  LIMIT ${limit}`;
}
