DROP INDEX "search_logs_batch_query_idx";--> statement-breakpoint
CREATE INDEX "search_logs_batch_created_idx" ON "search_logs" USING btree ("batch_id","created_at");