-- Denser HNSW graphs: recall@5 >= 0.95 at ef_search 60 instead of 100 (bench/search). Rebuilding takes about
-- 9 minutes per 100k rows on 2 cores and blocks writes to the table meanwhile; run it in a quiet window.
DROP INDEX "community_posts_embedding_hnsw_idx";--> statement-breakpoint
DROP INDEX "faqs_embedding_hnsw_idx";--> statement-breakpoint
CREATE INDEX "community_posts_embedding_hnsw_idx" ON "community_posts" USING hnsw ("embedding" vector_cosine_ops) WITH (m=48,ef_construction=160);--> statement-breakpoint
CREATE INDEX "faqs_embedding_hnsw_idx" ON "faqs" USING hnsw ("embedding" vector_cosine_ops) WITH (m=48,ef_construction=160);