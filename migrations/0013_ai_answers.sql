CREATE TABLE "ai_answer_outcomes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"post_id" uuid NOT NULL,
	"batch_id" uuid,
	"confidence" real,
	"published_by" text NOT NULL,
	"published_at" timestamp with time zone NOT NULL,
	"demoted_at" timestamp with time zone,
	"demoted_reason" text
);
--> statement-breakpoint
CREATE TABLE "ai_answer_votes" (
	"post_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"value" smallint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ai_answer_votes_post_id_user_id_pk" PRIMARY KEY("post_id","user_id"),
	CONSTRAINT "ai_answer_votes_value_check" CHECK ("ai_answer_votes"."value" in (-1, 1))
);
--> statement-breakpoint
CREATE TABLE "ai_usage" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"pipeline" text NOT NULL,
	"batch_id" uuid,
	"calls" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"retries" integer DEFAULT 0 NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ai_usage_key" UNIQUE NULLS NOT DISTINCT("provider","model","pipeline","batch_id")
);
--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "ai_answer_attempted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "ai_answer_claim" uuid;--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "ai_answer_sources" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "ai_answer_score" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "ai_answer_not_helpful_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ai_answer_outcomes" ADD CONSTRAINT "ai_answer_outcomes_post_id_community_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."community_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_answer_outcomes" ADD CONSTRAINT "ai_answer_outcomes_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_answer_votes" ADD CONSTRAINT "ai_answer_votes_post_id_community_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."community_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_answer_votes" ADD CONSTRAINT "ai_answer_votes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_usage" ADD CONSTRAINT "ai_usage_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_answer_outcomes_post_idx" ON "ai_answer_outcomes" USING btree ("post_id","published_at");--> statement-breakpoint
CREATE INDEX "ai_answer_outcomes_batch_idx" ON "ai_answer_outcomes" USING btree ("batch_id");