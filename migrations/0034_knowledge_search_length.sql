-- The knowledge tables' keyword ranking in POST /search (packages/core/src/search/text-sql.ts) reads
-- only the rows that can enter its list beside a vector list: those holding one of the query's strong
-- words, and the rows without an embedding (which the vector list cannot find). On bench/search's
-- 1,000 rows per table a rephrased question shares a word with 600-1,000 of them, and reading them all
-- for BM25's average document length was about a quarter of the statement's CPU (bench/search, README).
-- - search_length: length(search_vector), stored, so that average is the program's approved rows'
--   (BM25's collection average), read off the partial index below without touching the rows: all of
--   them up to LENGTH_SAMPLE_ROWS (1,000), beyond that the first that many in id order (random uuids:
--   a uniform sample), so its cost stays bounded as a program's knowledge base grows.
-- - *_unembedded_idx: the rows without an embedding (normally none), read apart.
ALTER TABLE "document_insights" ADD COLUMN "search_length" integer GENERATED ALWAYS AS (length(setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(content, '')), 'B'))) STORED;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD COLUMN "search_length" integer GENERATED ALWAYS AS (length(setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(content, '')), 'B'))) STORED;--> statement-breakpoint
CREATE INDEX "document_insights_search_length_idx" ON "document_insights" USING btree ("batch_id","id","search_length") WHERE status = 'approved';--> statement-breakpoint
CREATE INDEX "document_insights_unembedded_idx" ON "document_insights" USING btree ("batch_id") WHERE embedding IS NULL;--> statement-breakpoint
CREATE INDEX "transcript_knowledge_search_length_idx" ON "transcript_knowledge" USING btree ("batch_id","id","search_length") WHERE status = 'approved';--> statement-breakpoint
CREATE INDEX "transcript_knowledge_unembedded_idx" ON "transcript_knowledge" USING btree ("batch_id") WHERE embedding IS NULL;