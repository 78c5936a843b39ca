-- POST /search also searches the knowledge base (approved TranscriptKnowledge and DocumentInsight
-- rows of the program), as two more sources of the one fused statement (packages/core/src/search).
-- Their keyword candidates are picked by title hits like FAQs' and posts' (the two indexes below),
-- their words are weighed by the same statistics (the view below now lists them), and a knowledge
-- write that can change a search answer moves the search cache generation at its commit (the deferred
-- triggers of migration 0018), so no API process serves a cached answer from before it.
CREATE INDEX "document_insights_title_tsv_idx" ON "document_insights" USING gin (to_tsvector('english'::regconfig, "title"));--> statement-breakpoint
CREATE INDEX "transcript_knowledge_title_tsv_idx" ON "transcript_knowledge" USING gin (to_tsvector('english'::regconfig, "title"));--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "transcript_knowledge_search_cache_write" AFTER INSERT OR DELETE ON "transcript_knowledge"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "transcript_knowledge_search_cache_update" AFTER UPDATE ON "transcript_knowledge"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id OR OLD.title IS DISTINCT FROM NEW.title
    OR OLD.content IS DISTINCT FROM NEW.content OR OLD.status IS DISTINCT FROM NEW.status
    OR OLD.embedding IS DISTINCT FROM NEW.embedding)
  EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "document_insights_search_cache_write" AFTER INSERT OR DELETE ON "document_insights"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "document_insights_search_cache_update" AFTER UPDATE ON "document_insights"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id OR OLD.title IS DISTINCT FROM NEW.title
    OR OLD.content IS DISTINCT FROM NEW.content OR OLD.status IS DISTINCT FROM NEW.status
    OR OLD.embedding IS DISTINCT FROM NEW.embedding)
  EXECUTE FUNCTION "search_cache_bump_at_commit"();
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
