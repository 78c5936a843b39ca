-- A wider build candidate list for the FAQ graph: FAQs embedded from question and answer cluster tightly by
-- topic, and at ef_construction 160 whole clusters were missed (recall@5 0.874 at ef_search 60, bench/search
-- with real English words). Rebuilding takes about 2 minutes per 100k rows on 2 cores and blocks writes
-- to the table meanwhile; run it in a quiet window.
DROP INDEX "faqs_embedding_hnsw_idx";--> statement-breakpoint
CREATE INDEX "faqs_embedding_hnsw_idx" ON "faqs" USING hnsw ("embedding" vector_cosine_ops) WITH (m=48,ef_construction=400);