-- Lexeme document frequencies of the searched tsvector columns, copied out of pg_stats (kept by
-- ANALYZE) into an indexed relation: hybrid search weighs each query word by them, and reading
-- pg_stats and scanning its 1,000-element arrays took about 0.6 ms per table on every search
-- (bench/search). The worker refreshes it (search.lexeme-stats); until then it is empty and every word
-- weighs the same. The row with lexeme '' holds half the least frequent listed word's frequency: the
-- estimate for a word too rare to be listed.
CREATE MATERIALIZED VIEW "search_lexeme_stats" AS
SELECT s.tablename::text AS table_name, e.lexeme, e.frac::float8 AS frac
FROM pg_stats s
CROSS JOIN LATERAL (SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs) a
CROSS JOIN LATERAL (
  SELECT u.lexeme, u.frac FROM unnest(a.elems, a.freqs[1:array_length(a.elems, 1)]) AS u(lexeme, frac)
  UNION ALL
  SELECT '', a.freqs[array_length(a.elems, 1) + 1] / 2
) e
WHERE s.schemaname = current_schema() AND s.attname = 'search_vector' AND s.tablename IN ('faqs', 'community_posts');--> statement-breakpoint
CREATE UNIQUE INDEX "search_lexeme_stats_key" ON "search_lexeme_stats" ("table_name", "lexeme");
