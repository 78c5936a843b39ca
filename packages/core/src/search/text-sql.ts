import type { SourceTable } from './sources.js';
import {
  BM25_B,
  BM25_K1,
  BODY_WEIGHT,
  EXACT_ROWS,
  FALLBACK_LEXEMES,
  FALLBACK_ROWS,
  LENGTH_SAMPLE_ROWS,
  PAIR_LEXEMES,
  PER_LIST,
  type TextTuning,
  TRIPLE_LEXEMES,
} from './tuning.js';

/**
 * The keyword list of one source (pure SQL text): BM25 over candidate rows chosen by where the query's
 * words sit. `qlex` (the query's lexemes) is defined by the statement that includes these CTEs.
 */

/**
 * The rows worth scoring, chosen by where the query's words sit, since the ranking weighs a title hit
 * twice a body hit. Titles are matched through their own GIN expression index (migration 0007).
 * - Tier 1, with rare words (document frequency <= RARE_FRACTION) in the query: rows whose text holds
 *   two rare words of the PAIR_LEXEMES rarest, then rows whose title holds a rare word (`cascade`), up
 *   to TEXT_CANDIDATE_CAP in all. Read in one scan, a reached cap kept whichever rows the bitmap
 *   returned first (physical order): at 300,000 + 300,000 rows, where a rare word sits in thousands,
 *   the rephrased questions' keyword top 5 kept 0.75 / 0.67 (FAQs / posts) of true BM25's and often
 *   lost the FAQ asked about; pairs first, 0.89 / 0.79, for 9-13 % less backend CPU a statement there
 *   (bench/search). Under the cap both orders read the same rows: one scan where the statistics said
 *   every row fits cost 0-2 % less, within run-to-run spread, so the tiers are read this way always.
 *   A first tier of rows doing both (title and pair) kept 0.88 / 0.82 but cost 6-10 % more than pairs
 *   first: it repeats both index scans.
 *   With common words only: rows whose title holds three of the rarest TRIPLE_LEXEMES (two words:
 *   both; one word: it).
 * - Tier 2, common words only and tier 1 under PER_LIST rows: titles holding any two of them.
 * - Tier 3, tiers 1 and 2 under PER_LIST rows: rows whose title holds any query word or whose text
 *   holds one of its FALLBACK_LEXEMES rarest (FALLBACK_ROWS at most). Without statistics yet (a new
 *   database), every word counts as rare and "rarest" is alphabetical, so more than one is tried.
 * A common word alone never drives a match over the whole text, where it sits in thousands of rows:
 * at 100k + 100k rows common-word queries went from about 1,600 candidate rows to 200-900 and their
 * top-5 agreement with the unbounded ranking from 0.82 / 0.63 to 1.0 (bench/search).
 */
function textCandidates(t: SourceTable, a: string, cap: number, rare: number, columns: string): string {
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
  ${cascade(`${a}_c1`, [`search_vector @@ (SELECT pair_q FROM ${a}_p)`, `${title} @@ (SELECT title_q FROM ${a}_p)`], cap, columns, t, a)},
  ${a}_c2 AS MATERIALIZED (
    SELECT ${columns} FROM ${t.table}
    WHERE NOT (SELECT exact FROM ${a}_mode) AND ${title} @@ (SELECT title_wide_q FROM ${a}_p) AND (SELECT count(*) FROM ${a}_c1) < ${PER_LIST}
      AND id NOT IN (SELECT id FROM ${a}_c1) AND ${t.visible}
    LIMIT ${cap}
  ),
  ${a}_cand AS MATERIALIZED (
    SELECT id, sv, len, bare FROM ${a}_x
    UNION ALL
    SELECT id, sv, len, bare FROM ${a}_c1
    UNION ALL
    SELECT id, sv, len, bare FROM ${a}_c2
    UNION ALL
    (SELECT ${columns} FROM ${t.table}
     WHERE (${title} @@ (SELECT any_q FROM ${a}_p) OR search_vector @@ (SELECT rarest_q FROM ${a}_p))
       AND NOT (SELECT exact FROM ${a}_mode) AND (SELECT count(*) FROM ${a}_c1) + (SELECT count(*) FROM ${a}_c2) < ${PER_LIST}
       AND id NOT IN (SELECT id FROM ${a}_c1 UNION ALL SELECT id FROM ${a}_c2) AND ${t.visible}
     LIMIT ${FALLBACK_ROWS})
  )`;
}

/**
 * CTE `name`: the rows of `t` matching each of `tiers` in turn (a row once), at most `cap` in all. A
 * tier is read only while the ones before it hold fewer than `cap` rows, and only up to the rest, so
 * a cap reached keeps the stronger tiers' rows rather than whichever rows a scan returned first.
 */
function cascade(name: string, tiers: string[], cap: number, columns: string, t: SourceTable, a: string): string {
  const ctes: string[] = [];
  const taken = (k: number) => Array.from({ length: k }, (_, i) => `SELECT id FROM ${name}_${i}`).join(' UNION ALL ');
  for (const [k, cond] of tiers.entries()) {
    const before = k === 0 ? '' : `\n      AND (SELECT count(*) FROM (${taken(k)}) b) < ${cap} AND id NOT IN (${taken(k)})`;
    const limit = k === 0 ? `${cap}` : `(SELECT ${cap} - count(*) FROM (${taken(k)}) b)`;
    ctes.push(`${name}_${k} AS MATERIALIZED (
    SELECT ${columns} FROM ${t.table}
    WHERE NOT (SELECT exact FROM ${a}_mode) AND ${cond} AND ${t.visible}${before}
    LIMIT ${limit}
  )`);
  }
  return `${ctes.join(',\n  ')},
  ${name} AS MATERIALIZED (${tiers.map((_, k) => `SELECT id, sv, len, bare FROM ${name}_${k}`).join(' UNION ALL ')})`;
}

/**
 * How many times a word occurs in a document (in the positions a weight array selects), read back from
 * ts_rank of that single word, which is C code and a binary search away: with the selected positions
 * first and weighted 1 it ranks H(n) / (pi^2 / 6) with H(n) = sum of 1 / i^2 for i <= n, and
 * 1 / (pi^2 / 6 - H(n)) - 0.5 is n to within 0.05 (a rank of 0, no selected occurrence, gives 0.11:
 * 0). A title's positions precede its body's (the generated column concatenates them), so weights
 * {0,0,0,1} count the title's occurrences.
 */
function occurrences(weights: string, sv: string): string {
  return `round(1 / (1.6449341 * (1 - ts_rank('${weights}', ${sv}, w.q_any, 0))) - 0.5)`;
}

/**
 * What every candidate row carries: its length in distinct words (for BM25's average), whether it has
 * no embedding, and, gated, its tsvector (detoasted once) only where the row can enter the list: it
 * holds one of the query's strong words (`${a}_k`) or has no embedding. A row of the title tiers holding
 * only weak words is counted in the candidates' average length and never matched word by word or scored;
 * in exact mode such rows are not even read (`${a}_x`).
 */
const candidateColumns = (a: string, gate: boolean) =>
  `id, ${
    gate
      ? `CASE WHEN (SELECT all_strong FROM ${a}_k) OR embedding IS NULL OR search_vector @@ (SELECT strong_q FROM ${a}_k) THEN ts_delete(search_vector, '{}'::text[]) END`
      : "ts_delete(search_vector, '{}'::text[])"
  } AS sv, length(search_vector) AS len, embedding IS NULL AS bare`;

/**
 * A subquery over the query words of text CTE `a` that a document's tsvector `sv` holds: `score`, its
 * normalised BM25 score (NULL when it holds none), and `held`, the sum of those words' IDF. Each word
 * is looked up once (`@@`) and, where held, ranked twice (all positions, title positions): PostgreSQL
 * does not share a repeated subexpression, and the earlier form, with the term frequency written out
 * in BM25's numerator and denominator, ran 14 ts_rank calls a held word (bench/search).
 * idf * (k1 + 1) * (1 - K / (tf + K)) is BM25's idf * tf * (k1 + 1) / (tf + K) with tf written once.
 */
export function bm25Terms(a: string, sv: string, len = `length(${sv})`): string {
  return `SELECT sum(${bm25Term(a, sv, len)}) / (SELECT total FROM ${a}_m) AS score, sum(w.idf) AS held
      FROM ${a}_w w WHERE ${sv} @@ w.q_any`;
}

/** One query word's BM25 term for tsvector `sv` (of `len` distinct words) that holds it (`w`: the word's row of `${a}_w`). */
function bm25Term(a: string, sv: string, len: string): string {
  const k = `${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * ${len} / (SELECT avg FROM ${a}_len))`;
  const tf = `(${BODY_WEIGHT} * ${occurrences('{1,1,1,1}', sv)} + ${1 - BODY_WEIGHT} * ${occurrences('{0,0,0,1}', sv)})`;
  return `w.idf * ${BM25_K1 + 1} * (1 - ${k} / (${tf} + ${k}))`;
}

/**
 * The keyword list: BM25 (Robertson's k1 and b, IDF ln(1 + (N - df + 0.5) / (df + 0.5))) over the
 * candidates, with a body occurrence counting BODY_WEIGHT of a title one, document length as its count
 * of distinct words against an average (in exact mode the program's visible rows' where the table
 * stores each row's length, `lengthColumn`: BM25's collection average; else the candidates'), and
 * textScore = the sum over the query's words / its largest possible value, in (0, 1). Document
 * frequencies are exact while the query's words are expected in at most EXACT_ROWS rows (every matching
 * row is then a candidate, and each word's rows are counted in the whole table through its GIN index,
 * as the statistics and the row count are), else the statistics' estimates. `minScore`: the list keeps
 * only rows scoring at least that (the fused statement passes TEXT_LIST_MIN_SCORE), except rows without
 * an embedding: the vector list cannot find them (a FAQ written a moment ago, before the worker
 * embedded it, or while the embedder is down), so the keyword list is their only way in. With
 * `minScore`, only those rows and the candidates whose matching words' IDF reaches minScore of the
 * query's are kept: a word's BM25 term is below its IDF x (k1 + 1) whatever its frequency, so the
 * others cannot reach the share, and the list is what scoring every candidate gives. (Summing that IDF
 * first and ranking only the rows passing it cost the FAQ and post statements 1-5 % more, and the
 * knowledge tables' common-word ones 4-5 %: there nearly every candidate passes; bench/search, paired.)
 *
 * Beside the vector list the knowledge tables (about 1,000 rows each in bench/search) are always ranked
 * exactly, every matching row a candidate: of the 600-1,000 rows a rephrased question matches there,
 * most hold only its common words. So only the rows holding a strong word (`${a}_k`) are read, through
 * the GIN index, and the rows without an embedding apart: the weak words are the longest run of the
 * lowest-IDF words whose IDF sums stay under the share, and a row holding only those cannot reach it
 * (on the tables whose `gateWeakRows` says so: sources.ts). Their average length comes from the stored
 * lengths, so the list is the one the text-only ranking cuts at the share. On bench/search's rephrased
 * questions gating cut the knowledge statements' backend CPU by 21-38 % (6.3 -> 3.9 and 5.5 -> 4.3 ms)
 * when the weak rows were still read for the candidates' average; not reading them took another 18-23 %
 * (README).
 */
export function textCte(t: SourceTable, tuning: TextTuning, minScore = 0): string {
  const a = `${t.alias}_t`;
  const bounded = tuning.bounded;
  const cap = Math.floor(tuning.candidateCap);
  const rare = Number(tuning.rareFraction);
  const exactRows = Math.floor(tuning.exactRows);
  const exact = `(SELECT exact FROM ${a}_mode)`;
  // The matching rows read in exact mode, at most (unbounded: all of them).
  const exactCap = bounded ? `LIMIT ${Math.max(exactRows, EXACT_ROWS) * 2}` : '';
  // The least textScore the list keeps, as a sum of IDF (the slack absorbs float rounding).
  const share = `${Number(minScore)} * (SELECT sum(idf) FROM ${a}_w) * ${1 - 1e-9}`;
  // Only beside a vector list (minScore > 0) can a row hold too little of the query to enter.
  const gate = t.gateWeakRows && minScore > 0;
  const columns = candidateColumns(a, gate);
  const anyWord = `(SELECT string_agg(quote_literal(lex), ' | ')::tsquery FROM ${a}_w0)`;
  const xCte = gate
    ? // Only the rows that can enter: those holding a strong word (through the GIN index), and the
      // rows without an embedding (through the partial index of migration 0034; normally none).
      `  ${a}_x AS MATERIALIZED (
    (SELECT ${candidateColumns(a, false)} FROM ${t.table}
     WHERE ${bounded ? `${exact} AND ` : ''}search_vector @@ (SELECT strong_q FROM ${a}_k) AND ${t.visible}${bounded ? ` ${exactCap}` : ''})
    UNION ALL
    SELECT ${candidateColumns(a, false)} FROM ${t.table}
    WHERE ${bounded ? `${exact} AND ` : ''}embedding IS NULL AND search_vector @@ ${anyWord}
      AND NOT search_vector @@ (SELECT strong_q FROM ${a}_k) AND ${t.visible}
  )`
    : `  ${a}_x AS MATERIALIZED (
    SELECT ${columns} FROM ${t.table}
    WHERE ${bounded ? `${exact} AND ` : ''}search_vector @@ ${anyWord}
      AND ${t.visible}${bounded ? `\n    ${exactCap}` : ''}
  )`;
  // BM25's average document length: in exact mode the visible rows' where a stored length allows
  // (sources.ts; a CASE branch not taken is not run), else the candidates'.
  const averageLength = t.lengthColumn
    ? `SELECT greatest(CASE WHEN ${exact}
        THEN (SELECT avg(${t.lengthColumn}) FROM (SELECT ${t.lengthColumn} FROM ${t.table} WHERE ${t.visible} ORDER BY id LIMIT ${LENGTH_SAMPLE_ROWS}) l)
        ELSE (SELECT avg(len) FROM ${a}_cand) END, 1)::float8 AS avg`
    : `SELECT greatest(avg(len), 1)::float8 AS avg FROM ${a}_cand`;
  // A word's rows: through the GIN index where x comes after the word weights (gated), else among x.
  const counted = gate
    ? `(SELECT count(*) FROM (SELECT FROM ${t.table} WHERE search_vector @@ w0.q_any ${exactCap}) m)`
    : `(SELECT count(*) FROM ${a}_x x WHERE x.sv @@ w0.q_any)`;
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
${gate ? '' : `${xCte},\n`}  ${a}_w AS MATERIALIZED (
    SELECT lex, q_any, frac, ln(1 + (greatest(n - df, 0) + 0.5) / (df + 0.5)) AS idf,
      row_number() OVER (ORDER BY frac, lex) AS rn
    FROM (
      SELECT w0.lex, w0.q_any, w0.frac, s.n,
        CASE WHEN ${exact} THEN ${counted} ELSE w0.frac * s.n END::float8 AS df
      FROM ${a}_w0 w0 CROSS JOIN ${a}_s s
      -- Not pulled up: idf reads df twice, which would count the matching rows twice.
      OFFSET 0
    ) d
  ),
  ${a}_m AS MATERIALIZED (SELECT sum(idf) * ${BM25_K1 + 1} AS total FROM ${a}_w),
${
  gate
    ? `  ${a}_k AS MATERIALIZED (
    SELECT string_agg(quote_literal(lex), ' | ') FILTER (WHERE strong)::tsquery AS strong_q, coalesce(bool_and(strong), true) AS all_strong
    FROM (SELECT lex, sum(idf) OVER (ORDER BY idf, lex) >= ${share} AS strong FROM ${a}_w) k
  ),
${xCte},`
    : ''
}${bounded ? `\n  ${textCandidates(t, a, cap, rare, columns)},` : `\n  ${a}_cand AS MATERIALIZED (SELECT id, sv, len, bare FROM ${a}_x),`}
  ${a}_len AS MATERIALIZED (${averageLength}),
  ${a}_c AS MATERIALIZED (
    SELECT c.id, c.bare, s.score
    FROM ${a}_cand c CROSS JOIN LATERAL (${bm25Terms(a, 'c.sv', 'c.len')}) s
    WHERE c.sv IS NOT NULL${minScore > 0 ? ` AND (c.bare OR s.held >= ${share})` : ''}
  ),
  ${a} AS MATERIALIZED (
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank
    FROM ${a}_c c WHERE score > 0${minScore > 0 ? ` AND (score >= ${Number(minScore)} OR bare)` : ''} ORDER BY score DESC, id LIMIT ${PER_LIST}
  )`;
}
