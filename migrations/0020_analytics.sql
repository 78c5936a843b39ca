CREATE TABLE "analytics_rollups" (
	"name" text PRIMARY KEY NOT NULL,
	"rolled_through" date NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_daily_stats" (
	"day" date NOT NULL,
	"batch_id" uuid,
	"searches" integer NOT NULL,
	"zero_results" integer NOT NULL,
	"cache_hits" integer NOT NULL,
	"degraded" integer NOT NULL,
	"latency_sum" bigint NOT NULL,
	"latency_count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_query_daily" (
	"day" date NOT NULL,
	"batch_id" uuid,
	"normalized_query" text NOT NULL,
	"searches" integer NOT NULL,
	"zero_results" integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "search_daily_stats_key" ON "search_daily_stats" USING btree ("day",coalesce("batch_id", '00000000-0000-0000-0000-000000000000'::uuid));--> statement-breakpoint
CREATE INDEX "search_query_daily_day_idx" ON "search_query_daily" USING btree ("day","batch_id");--> statement-breakpoint
CREATE INDEX "comments_analytics_idx" ON "comments" USING btree ("created_at","deleted_at","post_id","author_id","is_accepted");--> statement-breakpoint
CREATE INDEX "community_posts_analytics_idx" ON "community_posts" USING btree ("created_at","batch_id","deleted_at","status","answered_at","ai_answer_status","ai_answer_reviewed_at","escalation_status","author_id");--> statement-breakpoint
CREATE INDEX "community_posts_analytics_batch_idx" ON "community_posts" USING btree ("batch_id","created_at","deleted_at","status","answered_at","ai_answer_status","ai_answer_reviewed_at","escalation_status","author_id");--> statement-breakpoint
CREATE INDEX "faqs_created_idx" ON "faqs" USING btree ("created_at","batch_id","source");--> statement-breakpoint
CREATE INDEX "users_created_idx" ON "users" USING btree ("created_at");