-- The knowledge tables keep their embedding in the row, not in the TOAST table. POST /search ranks
-- their rows by exact cosine distance (packages/core/src/search/hybrid-sql.ts: at the knowledge base's
-- size the planner prefers a sequential scan to the HNSW index), and each row's 3 kB vector read out
-- of TOAST cost an index lookup and two chunk reads: on bench/search's 1,000 rows per table the
-- nearest-5 scan read 3,199 buffers in 3.4-5.4 ms. Inline, a row of vector, tsvector and passage
-- fills about a page (998 pages for 1,000 rows), the planner prefers the HNSW index (0.8-1.1 ms), and
-- the exact scan, where it is still chosen, takes 1.4-1.6 ms.
-- A row passes the default toast threshold (2 kB) whenever it has an embedding, so MAIN alone would
-- still move the vector out; toast_tuple_target 8160 (the largest allowed) lets the row grow to a
-- page before anything is compressed or moved, and then the passage (EXTENDED) goes first.
-- The UPDATE rewrites existing vectors through a value copy (an unchanged TOAST pointer would be kept
-- as is); the values are identical, so the search-cache triggers, which compare them, do not fire.
ALTER TABLE "transcript_knowledge" SET (toast_tuple_target = 8160);--> statement-breakpoint
ALTER TABLE "document_insights" SET (toast_tuple_target = 8160);--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ALTER COLUMN "embedding" SET STORAGE MAIN;--> statement-breakpoint
ALTER TABLE "document_insights" ALTER COLUMN "embedding" SET STORAGE MAIN;--> statement-breakpoint
UPDATE "transcript_knowledge" SET "embedding" = "embedding"::real[]::vector WHERE "embedding" IS NOT NULL;--> statement-breakpoint
UPDATE "document_insights" SET "embedding" = "embedding"::real[]::vector WHERE "embedding" IS NOT NULL;
