ALTER TABLE "search_query_daily" ADD COLUMN "searches_rank" integer;--> statement-breakpoint
ALTER TABLE "search_query_daily" ADD COLUMN "zero_rank" integer;--> statement-breakpoint
CREATE INDEX "search_query_daily_leaders_idx" ON "search_query_daily" USING btree ("day","batch_id","normalized_query") WHERE "search_query_daily"."searches_rank" <= 100 or "search_query_daily"."zero_rank" <= 100;--> statement-breakpoint
CREATE INDEX "search_query_daily_query_idx" ON "search_query_daily" USING btree ("normalized_query","day","batch_id","searches","zero_results");--> statement-breakpoint
-- Rows rolled up before this migration have no ranks: the next analytics.rollup run recomputes every day still in the log.
DELETE FROM "analytics_rollups" WHERE "name" = 'search';
