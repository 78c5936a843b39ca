-- Hybrid search picks its keyword candidates by title hits (packages/core/src/search/hybrid-sql.ts):
-- a GIN index over each title's own words. The expression must match the search statement's exactly.
-- At 100k + 100k rows common-word queries went from ~1,600 scored rows to 200-900 (bench/search).
CREATE INDEX "community_posts_title_tsv_idx" ON "community_posts" USING gin (to_tsvector('english'::regconfig, "title"));--> statement-breakpoint
CREATE INDEX "faqs_title_tsv_idx" ON "faqs" USING gin (to_tsvector('english'::regconfig, "question"));