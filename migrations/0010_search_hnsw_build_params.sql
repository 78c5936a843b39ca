-- HNSW build parameters measured on real English words (bench/search, 100k rows each). FAQs, embedded
-- from question and answer, cluster tightly by topic, and at ef_construction 160 whole clusters were
-- missed (recall@5 0.874 at ef_search 60): their graph is built with 400. Posts, embedded from their
-- title, keep recall@5 0.98 at ef_search 100 with m = 32, a smaller graph that is faster to search.
-- Rebuilding takes about 3 minutes per 100k + 100k rows on 2 cores and blocks writes to the tables
-- meanwhile; run it in a quiet window.
DROP INDEX "community_posts_embedding_hnsw_idx";--> statement-breakpoint
DROP INDEX "faqs_embedding_hnsw_idx";--> statement-breakpoint
CREATE INDEX "community_posts_embedding_hnsw_idx" ON "community_posts" USING hnsw ("embedding" vector_cosine_ops) WITH (m=32,ef_construction=160);--> statement-breakpoint
CREATE INDEX "faqs_embedding_hnsw_idx" ON "faqs" USING hnsw ("embedding" vector_cosine_ops) WITH (m=48,ef_construction=400);