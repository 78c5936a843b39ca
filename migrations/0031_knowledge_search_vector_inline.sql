-- The knowledge tables' tsvector stays in the row (STORAGE MAIN), not in the TOAST table. Their rows are
-- long (transcript chunks, insights: title, passage, 768-float embedding), so PostgreSQL moved the
-- tsvector out of line whenever the row passed 2 kB, and the keyword side of POST /search, which reads
-- the tsvector of every row matching a query word (packages/core/src/search/text-sql.ts), paid a TOAST
-- index lookup and page read per row. On bench/search's 1,000 knowledge rows per table, reading every
-- row's tsvector took 1,119 buffer reads before and 389 after; the keyword sub-query's backend CPU time
-- fell by about 10 % (rephrased questions: 6.6 -> 5.9-6.0 ms; common words: 6.3 -> 5.0-5.7 ms).
-- With MAIN, the embedding (EXTERNAL) and the passage (EXTENDED) leave the row first; the tsvector is compressed or moved out only if the row is still too
-- large after that. The UPDATE recomputes the generated column of existing rows, so they are stored
-- the new way (no trigger fires: it changes no column the search-cache triggers watch).
ALTER TABLE "transcript_knowledge" ALTER COLUMN "search_vector" SET STORAGE MAIN;--> statement-breakpoint
ALTER TABLE "document_insights" ALTER COLUMN "search_vector" SET STORAGE MAIN;--> statement-breakpoint
UPDATE "transcript_knowledge" SET "title" = "title";--> statement-breakpoint
UPDATE "document_insights" SET "title" = "title";
