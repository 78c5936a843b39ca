import type pg from 'pg';
import { toVectorLiteral } from '../embeddings/embedder.js';

/**
 * The hybrid search statement: one SQL statement with up to four sub-searches (vector and text over
 * FAQs, vector and text over community posts, 5 rows each), fused by Reciprocal Rank Fusion.
 *
 * Vector side: each nearest-neighbour CTE is `ORDER BY embedding <=> $2 LIMIT 5` over one table,
 * MATERIALIZED, with the program filter inside; with `hnsw.iterative_scan = relaxed_order` set on the
 * connection (see `prepareSearchConnection`) the HNSW index keeps scanning until 5 rows pass the
 * filter. Relaxed order is restored by ranking on the distance outside the index scan.
 *
 * Text side: the query is parsed with `websearch_to_tsquery('english', ...)` (the generated columns'
 * configuration) and its non-negated lexemes are matched with OR semantics, so a natural-language
 * question matches documents that share any meaningful word, ranked by BM25 (see `textCte`). Word
 * statistics come from the planner's (pg_stats.most_common_elems of the tsvector column, kept by
 * ANALYZE, as copied into search_lexeme_stats by the worker's search.lexeme-stats job) or, while the
 * query's words sit in few rows or there are no statistics yet, from counting the matching rows.
 * Cost stays bounded by choosing candidates where the ranking can place them first (see
 * `textCandidates`): a common word alone never drives a match over the whole text, where it sits in
 * thousands of rows, and at most TEXT_CANDIDATE_CAP rows per tier are scored.
 */

export const RRF_K = 60;
export const PER_LIST = 5;
export const MAX_RESULTS = 5;
export const VECTOR_CUTOFF = 0.8;
/**
 * A lexeme in at most this fraction of rows is "rare" and drives the GIN match. At 100k rows of real
 * English words (bench/search) 0.02 keeps 0.85 / 0.71 of the unbounded BM25 top 5 of rephrased
 * questions (FAQs / posts) for about 3 ms more than 0.01, which kept 0.64 / 0.47.
 */
export const RARE_FRACTION = 0.02;
export const TEXT_CANDIDATE_CAP = 1000;
/**
 * When the statistics expect the query's words in at most this many rows of the table (or there are
 * no statistics yet: a new, small table), every matching row is a candidate and each word's document
 * frequency is counted exactly among them, as BM25 would; beyond it, the title tiers bound the cost.
 */
export const EXACT_ROWS = 2000;
/** BM25's term-frequency saturation and document-length normalisation (the usual defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** In BM25's term frequency, an occurrence in the body counts this much of one in the title. */
const BODY_WEIGHT = 0.5;
export const SNIPPET_CHARS = 240;
/**
 * HNSW candidate list per index scan. At 100k rows of real English words (bench/search), FAQs (embedded
 * from question and answer, m = 48, ef_construction = 400) reached recall@5 0.91-0.93 at 60 and
 * 0.952-0.962 at 100 over three builds; posts (embedded from their title, m = 32, ef_construction =
 * 160) 0.966-0.970 and 0.980-0.984. The step from 60 to 100 costs about 0.3 ms on the FAQ vector
 * sub-query and 0.9 ms on the posts one.
 */
export const HNSW_EF_SEARCH = 100;

export type SearchSource = 'faq' | 'community';
export type SearchMode = 'vector' | 'text';

interface SourceTable {
  source: SearchSource;
  alias: string;
  table: string;
  title: string;
  /** The title's own tsvector expression, as its GIN expression index declares it. */
  titleVector: string;
  body: string;
  /** Public visibility within program $3. */
  visible: string;
}

const TABLES: Record<SearchSource, SourceTable> = {
  faq: {
    source: 'faq',
    alias: 'f',
    table: 'faqs',
    title: 'question',
    titleVector: "to_tsvector('english'::regconfig, question)",
    body: 'answer',
    visible: "batch_id = $3 AND review_status <> 'draft'",
  },
  community: {
    source: 'community',
    alias: 'p',
    table: 'community_posts',
    title: 'title',
    titleVector: "to_tsvector('english'::regconfig, title)",
    body: 'body',
    visible: 'batch_id = $3 AND deleted_at IS NULL',
  },
};

export interface HybridSqlOptions {
  sources?: readonly SearchSource[];
  modes?: readonly SearchMode[];
  /** Keep only textScore > 0 or vectorScore >= 0.80 (the spec's fixed filter). */
  filter?: boolean;
  limit?: number;
  /** false: the unbounded text ranking (every row sharing any lexeme is scored), for the benchmark. */
  boundedText?: boolean;
  /** Tuning knobs of the bounded text side (defaults: TEXT_CANDIDATE_CAP, RARE_FRACTION). */
  candidateCap?: number;
  rareFraction?: number;
  /** Expected matching rows up to which every match is scored with exact frequencies (EXACT_ROWS). */
  exactRows?: number;
}

export interface HybridRow {
  id: string;
  source: SearchSource;
  title: string;
  snippet: string;
  rrfScore: number;
  textScore: number;
  vectorScore: number;
  textRank: number | null;
  vectorRank: number | null;
}

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

/** Lexemes of the query (rarest first) that form title pairs: rows whose title holds two of them. */
export const PAIR_LEXEMES = 8;
/** Of a query of common words only, the rarest this many form title triples, the first tier. */
export const TRIPLE_LEXEMES = 5;
/** When the tiers above find too few rows: any query word in the title, or one of the rarest anywhere, this many at most. */
export const FALLBACK_ROWS = PER_LIST * 40;
/** The rarest query words that the last tier matches anywhere in the text. */
export const FALLBACK_LEXEMES = 3;

/**
 * The rows worth scoring, chosen by where the query's words sit, since the ranking weighs a title hit
 * twice a body hit. Titles are matched through their own GIN expression index (migration 0007).
 * - Tier 1, with rare words (document frequency <= RARE_FRACTION) in the query: rows whose title holds
 *   a rare word, or a rare word and any other of the PAIR_LEXEMES rarest, and rows whose text holds two
 *   of them of which one is rare. With common words only: rows whose title holds three of the rarest
 *   TRIPLE_LEXEMES (two words: both; one word: it).
 * - Tier 2, common words only and tier 1 under PER_LIST rows: titles holding any two of them.
 * - Tier 3, tiers 1 and 2 under PER_LIST rows: rows whose title holds any query word or whose text
 *   holds one of its FALLBACK_LEXEMES rarest (FALLBACK_ROWS at most). Without statistics yet (a new
 *   database), every word counts as rare and "rarest" is alphabetical, so more than one is tried.
 * A common word alone never drives a match over the whole text, where it sits in thousands of rows:
 * at 100k + 100k rows common-word queries went from about 1,600 candidate rows to 200-900 and their
 * top-5 agreement with the unbounded ranking from 0.82 / 0.63 to 1.0 (bench/search).
 */
function textCandidates(t: SourceTable, a: string, cap: number, rare: number): string {
  const pairs = (where: string) => `(SELECT string_agg(quote_literal(x.lex) || ' & ' || quote_literal(y.lex), ' | ')
           FROM ${a}_w x JOIN ${a}_w y ON x.rn < y.rn WHERE ${where})`;
  const title = t.titleVector;
  return `${a}_p AS MATERIALIZED (
    SELECT
      CASE
        WHEN bool_or(frac <= ${rare}) THEN nullif(concat_ws(' | ',
          string_agg(quote_literal(lex), ' | ') FILTER (WHERE frac <= ${rare} AND rn <= ${PAIR_LEXEMES}),
          ${pairs(`x.frac <= ${rare} AND y.rn <= ${PAIR_LEXEMES}`)}), '')
        WHEN count(*) >= 3 THEN (SELECT string_agg(quote_literal(x.lex) || ' & ' || quote_literal(y.lex) || ' & ' || quote_literal(z.lex), ' | ')
           FROM ${a}_w x JOIN ${a}_w y ON x.rn < y.rn JOIN ${a}_w z ON y.rn < z.rn WHERE z.rn <= ${TRIPLE_LEXEMES})
        WHEN count(*) = 2 THEN ${pairs('true')}
        ELSE min(quote_literal(lex))
      END::tsquery AS title_q,
      CASE WHEN NOT bool_or(frac <= ${rare}) AND count(*) >= 3 THEN ${pairs(`y.rn <= ${PAIR_LEXEMES}`)} END::tsquery AS title_wide_q,
      ${pairs(`y.frac <= ${rare} AND y.rn <= ${PAIR_LEXEMES}`)}::tsquery AS pair_q,
      string_agg(quote_literal(lex), ' | ')::tsquery AS any_q,
      string_agg(quote_literal(lex), ' | ') FILTER (WHERE rn <= ${FALLBACK_LEXEMES})::tsquery AS rarest_q
    FROM ${a}_w
  ),
  ${a}_c1 AS MATERIALIZED (
    SELECT id, ts_delete(search_vector, '{}'::text[]) AS sv FROM ${t.table}
    WHERE NOT (SELECT exact FROM ${a}_mode)
      AND (${title} @@ (SELECT title_q FROM ${a}_p) OR search_vector @@ (SELECT pair_q FROM ${a}_p)) AND ${t.visible}
    LIMIT ${cap}
  ),
  ${a}_c2 AS MATERIALIZED (
    SELECT id, ts_delete(search_vector, '{}'::text[]) AS sv FROM ${t.table}
    WHERE NOT (SELECT exact FROM ${a}_mode) AND ${title} @@ (SELECT title_wide_q FROM ${a}_p) AND (SELECT count(*) FROM ${a}_c1) < ${PER_LIST}
      AND id NOT IN (SELECT id FROM ${a}_c1) AND ${t.visible}
    LIMIT ${cap}
  ),
  ${a}_cand AS MATERIALIZED (
    SELECT id, sv FROM ${a}_x
    UNION ALL
    SELECT id, sv FROM ${a}_c1
    UNION ALL
    SELECT id, sv FROM ${a}_c2
    UNION ALL
    (SELECT id, ts_delete(search_vector, '{}'::text[]) FROM ${t.table}
     WHERE (${title} @@ (SELECT any_q FROM ${a}_p) OR search_vector @@ (SELECT rarest_q FROM ${a}_p))
       AND NOT (SELECT exact FROM ${a}_mode) AND (SELECT count(*) FROM ${a}_c1) + (SELECT count(*) FROM ${a}_c2) < ${PER_LIST}
       AND id NOT IN (SELECT id FROM ${a}_c1 UNION ALL SELECT id FROM ${a}_c2) AND ${t.visible}
     LIMIT ${FALLBACK_ROWS})
  )`;
}

/**
 * How many times a word occurs in a document (in the positions a weight array selects), read back from
 * ts_rank of that single word, which is C code and a binary search away: with the selected positions
 * first and weighted 1 it ranks H(n) / (pi^2 / 6) with H(n) = sum of 1 / i^2 for i <= n, and
 * 1 / (pi^2 / 6 - H(n)) - 0.5 is n to within 0.05. A title's positions precede its body's (the
 * generated column concatenates them), so weights {0,0,0,1} count the title's occurrences.
 */
function occurrences(rank: string): string {
  return `CASE WHEN ${rank} > 1e-6 THEN round(1 / (1.6449341 * (1 - ${rank})) - 0.5) ELSE 0 END`;
}
/**
 * The keyword list: BM25 (Robertson's k1 and b, IDF ln(1 + (N - df + 0.5) / (df + 0.5))) over the
 * candidates, with a body occurrence counting BODY_WEIGHT of a title one, document length as its count
 * of distinct words against the candidates' average, and textScore = the sum over the query's words
 * / its largest possible value, in (0, 1). Document frequencies are exact while the query's words are
 * expected in at most EXACT_ROWS rows (every matching row is then a candidate, and counted), else the
 * statistics' estimates.
 */
function textCte(t: SourceTable, opts: HybridSqlOptions): string {
  const a = `${t.alias}_t`;
  const bounded = opts.boundedText ?? true;
  const cap = Math.floor(opts.candidateCap ?? TEXT_CANDIDATE_CAP);
  const rare = Number(opts.rareFraction ?? RARE_FRACTION);
  const exactRows = Math.floor(opts.exactRows ?? EXACT_ROWS);
  const exact = `(SELECT exact FROM ${a}_mode)`;
  // Statistics from search_lexeme_stats (the planner's, copied by the worker; migration 0009): a word
  // missing from the list is rarer than the least frequent listed one (the '' row). The row count is
  // the planner's estimate, or a count while the table has never been analysed (new and small).
  return `${a}_s AS MATERIALIZED (
    SELECT (SELECT frac FROM search_lexeme_stats WHERE table_name = '${t.table}' AND lexeme = '') AS unlisted,
      (SELECT CASE WHEN reltuples > 0 THEN reltuples ELSE (SELECT count(*) FROM ${t.table}) END
       FROM pg_class WHERE oid = '${t.table}'::regclass)::float8 AS n
  ),
  ${a}_w0 AS MATERIALIZED (
    SELECT l.lex, quote_literal(l.lex)::tsquery AS q_any,
      coalesce((SELECT frac FROM search_lexeme_stats WHERE table_name = '${t.table}' AND lexeme = l.lex),
        (SELECT unlisted FROM ${a}_s), 0)::float8 AS frac
    FROM qlex l
  ),
  ${a}_mode AS MATERIALIZED (
    SELECT (SELECT unlisted FROM ${a}_s) IS NULL
      OR (SELECT sum(frac) FROM ${a}_w0) * (SELECT n FROM ${a}_s) <= ${exactRows} AS exact
  ),
  ${a}_x AS MATERIALIZED (
    SELECT id, ts_delete(search_vector, '{}'::text[]) AS sv FROM ${t.table}
    WHERE ${bounded ? `${exact} AND ` : ''}search_vector @@ (SELECT string_agg(quote_literal(lex), ' | ')::tsquery FROM ${a}_w0)
      AND ${t.visible}${bounded ? `\n    LIMIT ${Math.max(exactRows, EXACT_ROWS) * 2}` : ''}
  ),
  ${a}_w AS MATERIALIZED (
    SELECT lex, q_any, frac, ln(1 + (greatest(n - df, 0) + 0.5) / (df + 0.5)) AS idf,
      row_number() OVER (ORDER BY frac, lex) AS rn
    FROM (
      SELECT w0.lex, w0.q_any, w0.frac, s.n,
        CASE WHEN ${exact} THEN (SELECT count(*) FROM ${a}_x x WHERE x.sv @@ w0.q_any) ELSE w0.frac * s.n END::float8 AS df
      FROM ${a}_w0 w0 CROSS JOIN ${a}_s s
    ) d
  ),
  ${a}_m AS MATERIALIZED (SELECT sum(idf) * ${BM25_K1 + 1} AS total FROM ${a}_w),${bounded ? `\n  ${textCandidates(t, a, cap, rare)},` : `\n  ${a}_cand AS MATERIALIZED (SELECT id, sv FROM ${a}_x),`}
  ${a}_len AS MATERIALIZED (SELECT greatest(avg(length(sv)), 1)::float8 AS avg FROM ${a}_cand),
  ${a}_c AS MATERIALIZED (
    SELECT c.id, (
      SELECT sum(w.idf * f.tf * ${BM25_K1 + 1} / (f.tf + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * length(c.sv) / (SELECT avg FROM ${a}_len))))
      FROM ${a}_w w
      CROSS JOIN LATERAL (SELECT ts_rank('{1,1,1,1}', c.sv, w.q_any, 0) AS all_rank, ts_rank('{0,0,0,1}', c.sv, w.q_any, 0) AS title_rank) k
      CROSS JOIN LATERAL (SELECT ${occurrences('k.all_rank')} AS n, ${occurrences('k.title_rank')} AS n_title) r
      CROSS JOIN LATERAL (SELECT r.n_title + ${BODY_WEIGHT} * (r.n - r.n_title) AS tf) f
      WHERE r.n > 0
    ) / (SELECT total FROM ${a}_m) AS score
    FROM ${a}_cand c
  ),
  ${a} AS MATERIALIZED (
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank
    FROM ${a}_c WHERE score > 0 ORDER BY score DESC, id LIMIT ${PER_LIST}
  )`;
}

/** Builds the statement. Parameters: $1 normalised query, $2 query embedding (pgvector text), $3 program id. */
export function buildHybridSql(opts: HybridSqlOptions = {}): string {
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
    const t = TABLES[s];
    if (modes.includes('vector')) {
      ctes.push(vectorCte(t));
      lists.push(`SELECT '${s}'::text AS source, id, 'v'::text AS kind, score, rank FROM ${t.alias}_v`);
    }
    if (modes.includes('text')) {
      ctes.push(textCte(t, opts));
      lists.push(`SELECT '${s}'::text AS source, id, 't'::text AS kind, score, rank FROM ${t.alias}_t`);
    }
  }
  // Keep every parameter referenced so each variant takes the same three.
  if (!modes.includes('vector')) ctes.push('unused_vec AS (SELECT $2::text AS v)');
  if (!modes.includes('text')) ctes.push('unused_query AS (SELECT $1::text AS q)');
  const filter = opts.filter ?? true;
  const limit = opts.limit ?? MAX_RESULTS;
  const join = sources
    .map((s) => {
      const t = TABLES[s];
      return `LEFT JOIN ${t.table} ${t.alias} ON fused.source = '${s}' AND ${t.alias}.id = fused.id`;
    })
    .join('\n  ');
  const pick = (col: 'title' | 'body') => sources.map((s) => `${TABLES[s].alias}.${TABLES[s][col]}`).join(', ');
  return `WITH ${ctes.join(',\n  ')},
  lists AS (
    ${lists.join('\n    UNION ALL\n    ')}
  ),
  fused AS (
    SELECT source, id,
      sum(1.0 / (${RRF_K} + rank))::float8 AS rrf_score,
      coalesce(max(score) FILTER (WHERE kind = 't'), 0)::float8 AS text_score,
      coalesce(max(score) FILTER (WHERE kind = 'v'), 0)::float8 AS vector_score,
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

const prepared = new WeakSet<pg.PoolClient>();

/**
 * Session settings for the vector sub-searches, applied once per pooled connection so each search
 * stays one statement: iterative index scans (pgvector 0.8) so a filtered nearest-neighbour query
 * still finds 5 rows, and the HNSW candidate list size.
 */
export async function prepareSearchConnection(client: pg.PoolClient): Promise<void> {
  if (prepared.has(client)) return;
  await client.query(`SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = ${HNSW_EF_SEARCH}`);
  prepared.add(client);
}

/**
 * The statement text for one variant of the options. Unnamed on purpose: on the embedded database
 * every pool connection shares one PGlite session, so a named prepared statement made by one
 * connection collides with the same name on the next ("prepared statement already exists"). The
 * price on PostgreSQL is planning on every uncached search (~2.7 ms of ~22 ms; bench/search).
 * The session settings above are safe there: every connection sets the same values.
 */
export interface HybridStatement {
  text: string;
}

const statements = new Map<string, HybridStatement>();

/** The statement for these options, built once per process. */
export function hybridStatement(opts: HybridSqlOptions = {}): HybridStatement {
  const key = JSON.stringify([
    opts.sources,
    opts.modes,
    opts.filter,
    opts.limit,
    opts.boundedText,
    opts.candidateCap,
    opts.rareFraction,
    opts.exactRows,
  ]);
  let statement = statements.get(key);
  if (!statement) {
    statement = { text: buildHybridSql(opts) };
    statements.set(key, statement);
  }
  return statement;
}

export interface RunHybridParams extends HybridSqlOptions {
  query: string;
  /** null: text-only (the embedder failed or vector mode is off). */
  embedding: readonly number[] | null;
  programId: string;
}

/** Runs the statement on a pooled connection prepared for iterative scans. */
export async function runHybridSearch(pool: pg.Pool, p: RunHybridParams): Promise<HybridRow[]> {
  const modes = (p.modes ?? ['vector', 'text']).filter((m) => m !== 'vector' || p.embedding !== null);
  if (modes.length === 0) return [];
  const statement = hybridStatement({ ...p, modes });
  const client = await pool.connect();
  try {
    await prepareSearchConnection(client);
    const res = await client.query<HybridRow>({
      ...statement,
      values: [p.query, p.embedding ? toVectorLiteral(p.embedding) : null, p.programId],
    });
    return res.rows;
  } finally {
    client.release();
  }
}
