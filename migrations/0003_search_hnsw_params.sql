DROP INDEX "community_posts_embedding_hnsw_idx";--> statement-breakpoint
DROP INDEX "faqs_embedding_hnsw_idx";--> statement-breakpoint
CREATE INDEX "community_posts_embedding_hnsw_idx" ON "community_posts" USING hnsw ("embedding" vector_cosine_ops) WITH (m=32,ef_construction=128);--> statement-breakpoint
CREATE INDEX "faqs_embedding_hnsw_idx" ON "faqs" USING hnsw ("embedding" vector_cosine_ops) WITH (m=32,ef_construction=128);