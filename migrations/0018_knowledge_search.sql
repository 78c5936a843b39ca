-- POST /search also searches the knowledge base (approved TranscriptKnowledge and DocumentInsight
-- rows of the program), as two more sources of the one fused statement (packages/core/src/search).
-- Their keyword candidates are picked by title hits like FAQs' and posts' (the two indexes below),
-- their words are weighed by the same statistics (the view below now lists them), and a knowledge
-- write that can change a search answer moves the search cache generation (migration 0014), so no API
-- process serves a cached answer from before it.
CREATE INDEX "document_insights_title_tsv_idx" ON "document_insights" USING gin (to_tsvector('english'::regconfig, "title"));--> statement-breakpoint
CREATE INDEX "transcript_knowledge_title_tsv_idx" ON "transcript_knowledge" USING gin (to_tsvector('english'::regconfig, "title"));--> statement-breakpoint
CREATE FUNCTION "search_cache_bump_knowledge"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.batch_id IS DISTINCT FROM n.batch_id OR o.title IS DISTINCT FROM n.title
      OR o.content IS DISTINCT FROM n.content OR o.status IS DISTINCT FROM n.status
      OR o.embedding IS DISTINCT FROM n.embedding
  ) THEN
    UPDATE search_cache_generation SET value = value + 1 WHERE id = 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "transcript_knowledge_search_cache_insert" AFTER INSERT ON "transcript_knowledge" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "transcript_knowledge_search_cache_delete" AFTER DELETE ON "transcript_knowledge" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "transcript_knowledge_search_cache_update" AFTER UPDATE ON "transcript_knowledge" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump_knowledge"();
--> statement-breakpoint
CREATE TRIGGER "document_insights_search_cache_insert" AFTER INSERT ON "document_insights" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "document_insights_search_cache_delete" AFTER DELETE ON "document_insights" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "document_insights_search_cache_update" AFTER UPDATE ON "document_insights" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump_knowledge"();
--> statement-breakpoint
DROP MATERIALIZED VIEW "search_lexeme_stats";
--> statement-breakpoint
CREATE MATERIALIZED VIEW "search_lexeme_stats" AS
SELECT s.tablename::text AS table_name, e.lexeme, e.frac::float8 AS frac
FROM pg_stats s
CROSS JOIN LATERAL (SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs) a
CROSS JOIN LATERAL (
  SELECT u.lexeme, u.frac FROM unnest(a.elems, a.freqs[1:array_length(a.elems, 1)]) AS u(lexeme, frac)
  UNION ALL
  SELECT '', a.freqs[array_length(a.elems, 1) + 1] / 2
) e
WHERE s.schemaname = current_schema() AND s.attname = 'search_vector'
  AND s.tablename IN ('faqs', 'community_posts', 'transcript_knowledge', 'document_insights');
--> statement-breakpoint
CREATE UNIQUE INDEX "search_lexeme_stats_key" ON "search_lexeme_stats" ("table_name", "lexeme");
