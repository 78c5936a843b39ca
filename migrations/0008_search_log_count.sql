-- Cache hits of the same search within one flush interval share a search-log row; count says how many
-- searches a row stands for (1 for every row written before). Adding a column with a constant default
-- does not rewrite the table.
ALTER TABLE "search_logs" ADD COLUMN "count" integer DEFAULT 1 NOT NULL;