/**
 * The hybrid search's tuning constants: the spec's fixed pipeline (RRF_K, PER_LIST, MAX_RESULTS,
 * VECTOR_CUTOFF) and the keyword side's measured defaults (bench/search, bench/relevance). Production
 * always runs these values; `TextTuning` lets the pure builder take others, which only the benchmarks
 * and the builder's own tests pass (never part of a production statement's cache key).
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
/**
 * The most rows a candidate tier scores (text-sql.ts). 700 since the first tier reads rare-word pairs
 * before title hits: at 300,000 + 300,000 rows that kept more of the uncapped tiers' ranking than
 * 1,000 rows read in physical order (0.91 / 0.86 against 0.75 / 0.74 of the rephrased questions' top
 * 5, FAQs / posts) for less CPU (bench/search).
 */
export const TEXT_CANDIDATE_CAP = 700;
/**
 * When the statistics expect the query's words in at most this many rows of the table (or there are
 * no statistics yet: a new, small table), every matching row is a candidate and each word's document
 * frequency is counted exactly among them, as BM25 would; beyond it, the title tiers bound the cost.
 */
export const EXACT_ROWS = 2000;
/**
 * In the fused statement (vector and keyword lists together), the keyword list holds only rows whose
 * textScore reaches this share of the query's largest possible BM25 score: about 45 % of the query's
 * IDF-weighted words at one occurrence each (a "minimum should match"). A long question's rows that
 * share only one or two of its common words then stay out of the keyword list, where RRF made them
 * outrank what the vector list found first whenever they also sat among its five; they keep their
 * textScore (the fixed filter still sees it). On bench/relevance, P@1 of the fused ranking went from
 * 56.7 to 58.4 (cohort-program, the set tuned on: 0.2 to 0.4 all gave 58.4-58.9) and from 55.3 to 59.3
 * (public-library, not tuned on); keyword-only queries kept their figures. A text-only search (no
 * vector list, or a degraded one) keeps every match.
 */
export const TEXT_LIST_MIN_SCORE = 0.2;
/**
 * Where a table stores each row's length (the knowledge tables: sources.ts), BM25's average document
 * length in exact mode is that of the program's visible rows, read index-only: all of them up to this
 * many, beyond that this many in id order (random uuids: a uniform sample, whose average is within a
 * few percent of the whole). At 3,000 rows a table (bench/search at 300,000) reading all of them, 4,000
 * at most, cost the knowledge statements 5-14 % more on selective and common-word queries; 1,000, 1-7 %.
 */
export const LENGTH_SAMPLE_ROWS = 1000;
/** BM25's term-frequency saturation and document-length normalisation (the usual defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** In BM25's term frequency, an occurrence in the body counts this much of one in the title. */
export const BODY_WEIGHT = 0.5;
export const SNIPPET_CHARS = 240;
/**
 * HNSW candidate list per index scan. At 100k rows of real English words (bench/search), FAQs (embedded
 * from question and answer, m = 48, ef_construction = 400) reached recall@5 0.91-0.93 at 60 and
 * 0.952-0.962 at 100 over three builds; posts (embedded from their title, m = 32, ef_construction =
 * 160) 0.966-0.970 and 0.980-0.984. The step from 60 to 100 costs about 0.3 ms on the FAQ vector
 * sub-query and 0.9 ms on the posts one. On h19s's seeds (2026-11-23) 100 gave 0.948 for 100k posts and
 * 0.900 for 300k FAQs, under the 0.95 target; 150 gave 0.974 and 0.956 (all four at or above 0.956).
 * Later 300k FAQ builds gave 0.876-0.946 at 150, so past 100k rows the FAQ lists' grows with the table
 * (graph-size.ts).
 */
export const HNSW_EF_SEARCH = 150;

/** Lexemes of the query (rarest first) that form title pairs: rows whose title holds two of them. */
export const PAIR_LEXEMES = 8;
/** Of a query of common words only, the rarest this many form title triples, the first tier. */
export const TRIPLE_LEXEMES = 5;
/** When the tiers above find too few rows: any query word in the title, or one of the rarest anywhere, this many at most. */
export const FALLBACK_ROWS = PER_LIST * 40;
/** The rarest query words that the last tier matches anywhere in the text. */
export const FALLBACK_LEXEMES = 3;

/** The keyword side's knobs, for the benchmarks and the builder's tests; production uses the defaults. */
export interface TextTuning {
  /** false: the unbounded text ranking (every row sharing any lexeme is scored). */
  bounded: boolean;
  candidateCap: number;
  rareFraction: number;
  /** Expected matching rows up to which every match is scored with exact frequencies. */
  exactRows: number;
}

export const DEFAULT_TEXT_TUNING: Readonly<TextTuning> = Object.freeze({
  bounded: true,
  candidateCap: TEXT_CANDIDATE_CAP,
  rareFraction: RARE_FRACTION,
  exactRows: EXACT_ROWS,
});
