CREATE TYPE "public"."ai_answer_source" AS ENUM('faq_knowledge', 'ai_generated', 'manual');--> statement-breakpoint
CREATE TYPE "public"."ai_answer_status" AS ENUM('approved', 'suggested', 'escalated', 'rejected');--> statement-breakpoint
CREATE TYPE "public"."conf_insight_status" AS ENUM('pending_review', 'approved', 'rejected');--> statement-breakpoint
CREATE TYPE "public"."conf_meeting_status" AS ENUM('pending', 'completed', 'failed');--> statement-breakpoint
CREATE TYPE "public"."conf_sourcing" AS ENUM('webhook', 'manual_vtt', 'manual_raw', 'backfill');--> statement-breakpoint
CREATE TYPE "public"."escalation_status" AS ENUM('none', 'escalated', 'resolved', 'dismissed');--> statement-breakpoint
CREATE TYPE "public"."faq_flag_type" AS ENUM('manual', 'auto');--> statement-breakpoint
CREATE TYPE "public"."faq_promotion_status" AS ENUM('community_pending', 'promoted', 'objected');--> statement-breakpoint
CREATE TYPE "public"."faq_report_status" AS ENUM('open', 'resolved', 'dismissed');--> statement-breakpoint
CREATE TYPE "public"."faq_review_status" AS ENUM('approved', 'pending_review', 'draft', 'verified', 'update_requested');--> statement-breakpoint
CREATE TYPE "public"."faq_source" AS ENUM('manual', 'suggestion', 'community_post', 'conf_insight', 'transcript_knowledge');--> statement-breakpoint
CREATE TYPE "public"."fresh_review_verdict" AS ENUM('still_accurate', 'needs_update');--> statement-breakpoint
CREATE TYPE "public"."freshness_tier" AS ENUM('evergreen', 'seasonal', 'volatile');--> statement-breakpoint
CREATE TYPE "public"."knowledge_status" AS ENUM('pending_review', 'approved', 'rejected', 'promoted');--> statement-breakpoint
CREATE TYPE "public"."pipeline_name" AS ENUM('auto_answer', 'faq_audit');--> statement-breakpoint
CREATE TYPE "public"."pipeline_target_model" AS ENUM('CommunityPost', 'FAQ');--> statement-breakpoint
CREATE TYPE "public"."pipeline_verdict" AS ENUM('approved', 'suggested', 'escalated', 'correct', 'drift_detected', 'contradiction', 'stale', 'skipped');--> statement-breakpoint
CREATE TYPE "public"."post_status" AS ENUM('open', 'answered', 'pending', 'closed');--> statement-breakpoint
CREATE TYPE "public"."support_request_status" AS ENUM('open', 'in_progress', 'closed');--> statement-breakpoint
CREATE TYPE "public"."unresolved_search_status" AS ENUM('open', 'resolved');--> statement-breakpoint
CREATE TYPE "public"."user_role" AS ENUM('user', 'moderator', 'admin');--> statement-breakpoint
CREATE TYPE "public"."user_status" AS ENUM('active', 'suspended');--> statement-breakpoint
CREATE TABLE "admin_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"actor_id" uuid,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"reason" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" text,
	"batch_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_configs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"scope" text DEFAULT 'global' NOT NULL,
	"provider" text,
	"model" text,
	"auto_answer_provider" text,
	"auto_answer_model" text,
	"audit_provider" text,
	"audit_model" text,
	"api_keys" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"base_urls" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"request_count" integer DEFAULT 0 NOT NULL,
	"token_count" integer DEFAULT 0 NOT NULL,
	"usage_reset_at" timestamp with time zone,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_questions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid,
	"batch_id" uuid,
	"question" text NOT NULL,
	"answer" text,
	"sources" text[] DEFAULT '{}' NOT NULL,
	"provider" text,
	"model" text,
	"confidence" real,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moderation_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"actor_id" uuid,
	"target_user_id" uuid,
	"action" text NOT NULL,
	"reason" text,
	"until" timestamp with time zone,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "comment_votes" (
	"comment_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"value" smallint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comment_votes_comment_id_user_id_pk" PRIMARY KEY("comment_id","user_id"),
	CONSTRAINT "comment_votes_value_check" CHECK ("comment_votes"."value" in (-1, 1))
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"post_id" uuid NOT NULL,
	"author_id" uuid,
	"body" text NOT NULL,
	"upvotes" integer DEFAULT 0 NOT NULL,
	"downvotes" integer DEFAULT 0 NOT NULL,
	"is_accepted" boolean DEFAULT false NOT NULL,
	"is_verified" boolean DEFAULT false NOT NULL,
	"verified_by" uuid,
	"verified_at" timestamp with time zone,
	"dna" boolean DEFAULT false NOT NULL,
	"dna_by" uuid,
	"dna_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "community_posts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid,
	"author_id" uuid,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"status" "post_status" DEFAULT 'open' NOT NULL,
	"upvotes" integer DEFAULT 0 NOT NULL,
	"downvotes" integer DEFAULT 0 NOT NULL,
	"comment_count" integer DEFAULT 0 NOT NULL,
	"accepted_comment_id" uuid,
	"converted_faq_id" uuid,
	"ai_answer" text,
	"ai_answer_confidence" real,
	"ai_answer_status" "ai_answer_status",
	"ai_answer_source" "ai_answer_source",
	"ai_answer_suggested_at" timestamp with time zone,
	"ai_answer_reviewed_at" timestamp with time zone,
	"ai_answer_reviewed_by" uuid,
	"ai_answer_escalated_at" timestamp with time zone,
	"ai_answer_escalated_reason" text,
	"ai_answer_attempts" integer DEFAULT 0 NOT NULL,
	"last_checked_at" timestamp with time zone,
	"escalation_status" "escalation_status" DEFAULT 'none' NOT NULL,
	"escalated_at" timestamp with time zone,
	"escalation_resolved_at" timestamp with time zone,
	"escalation_resolved_by" uuid,
	"escalation_note" text,
	"answered_at" timestamp with time zone,
	"embedding" vector(768),
	"embedded_at" timestamp with time zone,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(body, '')), 'B')) STORED,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "post_votes" (
	"post_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"value" smallint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "post_votes_post_id_user_id_pk" PRIMARY KEY("post_id","user_id"),
	CONSTRAINT "post_votes_value_check" CHECK ("post_votes"."value" in (-1, 1))
);
--> statement-breakpoint
CREATE TABLE "conf_insights" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"meeting_id" uuid NOT NULL,
	"batch_id" uuid,
	"question" text NOT NULL,
	"answer" text NOT NULL,
	"context" text,
	"speaker" text,
	"status" "conf_insight_status" DEFAULT 'pending_review' NOT NULL,
	"converted_faq_id" uuid,
	"reviewed_by" uuid,
	"reviewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conf_meetings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"conf_meeting_id" text NOT NULL,
	"conf_meeting_number" text,
	"batch_id" uuid,
	"user_id" uuid,
	"host_email" text,
	"conf_user_id" text,
	"topic" text NOT NULL,
	"status" "conf_meeting_status" DEFAULT 'pending' NOT NULL,
	"sourcing" "conf_sourcing" NOT NULL,
	"insight_count" integer DEFAULT 0 NOT NULL,
	"start_time" timestamp with time zone,
	"duration_minutes" integer,
	"transcript_text" text,
	"error" text,
	"payload" jsonb,
	"processed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "document_insights" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"source_type" text DEFAULT 'document' NOT NULL,
	"source_ref" text,
	"status" "knowledge_status" DEFAULT 'pending_review' NOT NULL,
	"promoted_faq_id" uuid,
	"created_by" uuid,
	"reviewed_by" uuid,
	"reviewed_at" timestamp with time zone,
	"embedding" vector(768),
	"embedded_at" timestamp with time zone,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(content, '')), 'B')) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transcript_knowledge" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"meeting_id" uuid,
	"batch_id" uuid,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"status" "knowledge_status" DEFAULT 'approved' NOT NULL,
	"promoted_faq_id" uuid,
	"reviewed_by" uuid,
	"reviewed_at" timestamp with time zone,
	"embedding" vector(768),
	"embedded_at" timestamp with time zone,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(content, '')), 'B')) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "badges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"batch_id" uuid,
	"name" text NOT NULL,
	"reason" text,
	"awarded_by" uuid,
	"awarded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" uuid,
	"revoke_reason" text
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"in_app" boolean DEFAULT true NOT NULL,
	"email" boolean DEFAULT false NOT NULL,
	"tea_drops" boolean DEFAULT true NOT NULL,
	"kinds" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"batch_id" uuid,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"body" text,
	"link" text,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reputation_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"batch_id" uuid,
	"points" integer NOT NULL,
	"reason" text NOT NULL,
	"source_type" text,
	"source_id" uuid,
	"awarded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "support_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid,
	"batch_id" uuid,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"status" "support_request_status" DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tea_notification_reads" (
	"tea_notification_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"read_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tea_notification_reads_tea_notification_id_user_id_pk" PRIMARY KEY("tea_notification_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "tea_notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid,
	"batch_id" uuid,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"body" text,
	"link" text,
	"ref_type" text,
	"ref_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "faq_feedback" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"faq_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"helpful" boolean NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "faq_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"faq_id" uuid NOT NULL,
	"reporter_id" uuid,
	"reason" text NOT NULL,
	"status" "faq_report_status" DEFAULT 'open' NOT NULL,
	"resolved_by" uuid,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "faq_revisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"faq_id" uuid NOT NULL,
	"editor_id" uuid,
	"changes" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "faqs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"question" text NOT NULL,
	"answer" text NOT NULL,
	"category" text,
	"review_status" "faq_review_status" DEFAULT 'approved' NOT NULL,
	"flag_type" "faq_flag_type",
	"flag_reason" text,
	"last_checked_at" timestamp with time zone,
	"review_cycle" integer DEFAULT 0 NOT NULL,
	"freshness_tier" "freshness_tier" DEFAULT 'evergreen' NOT NULL,
	"last_verified_date" timestamp with time zone DEFAULT now() NOT NULL,
	"review_interval_days" integer,
	"flagged_at" timestamp with time zone,
	"escalated_at" timestamp with time zone,
	"source" "faq_source" DEFAULT 'manual' NOT NULL,
	"source_id" uuid,
	"promotion_status" "faq_promotion_status",
	"promotion_eligible_at" timestamp with time zone,
	"objection_count" integer DEFAULT 0 NOT NULL,
	"helpful_count" integer DEFAULT 0 NOT NULL,
	"not_helpful_count" integer DEFAULT 0 NOT NULL,
	"view_count" integer DEFAULT 0 NOT NULL,
	"embedding" vector(768),
	"embedded_at" timestamp with time zone,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(question, '')), 'A') || setweight(to_tsvector('english', coalesce(answer, '')), 'B')) STORED,
	"created_by" uuid,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fresh_review_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"faq_id" uuid NOT NULL,
	"cycle" integer NOT NULL,
	"action" text NOT NULL,
	"from_status" "faq_review_status",
	"to_status" "faq_review_status",
	"actor_id" uuid,
	"reason" text,
	"details" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fresh_review_votes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"faq_id" uuid NOT NULL,
	"cycle" integer NOT NULL,
	"voter_id" uuid NOT NULL,
	"verdict" "fresh_review_verdict" NOT NULL,
	"suggestion" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conf_oauth_states" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"nonce" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"family_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"rotated_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"user_agent" text,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"name" text NOT NULL,
	"role" "user_role" DEFAULT 'user' NOT NULL,
	"status" "user_status" DEFAULT 'active' NOT NULL,
	"suspended_at" timestamp with time zone,
	"suspended_until" timestamp with time zone,
	"suspended_reason" text,
	"reputation" integer DEFAULT 0 NOT NULL,
	"bio" text,
	"avatar_url" text,
	"totp_secret" text,
	"totp_pending_secret" text,
	"totp_enabled" boolean DEFAULT false NOT NULL,
	"totp_last_used_step" bigint,
	"conf_connected" boolean DEFAULT false NOT NULL,
	"conf_user_id" text,
	"conf_email" text,
	"conf_access_token" text,
	"conf_refresh_token" text,
	"conf_token_expires_at" timestamp with time zone,
	"conf_connected_at" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pipeline_results" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"pipeline" "pipeline_name" NOT NULL,
	"target_model" "pipeline_target_model" NOT NULL,
	"target_id" uuid NOT NULL,
	"target_title" text NOT NULL,
	"batch_id" uuid,
	"score" real,
	"confidence" real,
	"verdict" "pipeline_verdict" NOT NULL,
	"flagged" boolean NOT NULL,
	"sources" text[] DEFAULT '{}' NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"review_action" text,
	"reviewed_by" uuid,
	"reviewed_at" timestamp with time zone,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"start_date" date,
	"end_date" date,
	"is_default" boolean DEFAULT false NOT NULL,
	"archived_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "categories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "program_settings" (
	"batch_id" uuid PRIMARY KEY NOT NULL,
	"theme" jsonb NOT NULL,
	"hero" jsonb NOT NULL,
	"sections" jsonb NOT NULL,
	"branding" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"query" text NOT NULL,
	"normalized_query" text NOT NULL,
	"user_id" uuid,
	"batch_id" uuid,
	"result_count" integer NOT NULL,
	"top_result_id" uuid,
	"top_source" text,
	"cache_hit" boolean DEFAULT false NOT NULL,
	"degraded" boolean DEFAULT false NOT NULL,
	"latency_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "unresolved_searches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"query" text NOT NULL,
	"normalized_query" text NOT NULL,
	"user_id" uuid,
	"batch_id" uuid,
	"count" integer DEFAULT 1 NOT NULL,
	"status" "unresolved_search_status" DEFAULT 'open' NOT NULL,
	"resolved_faq_id" uuid,
	"resolved_by" uuid,
	"resolved_at" timestamp with time zone,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admin_logs" ADD CONSTRAINT "admin_logs_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "admin_logs" ADD CONSTRAINT "admin_logs_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_configs" ADD CONSTRAINT "ai_configs_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_questions" ADD CONSTRAINT "ai_questions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_questions" ADD CONSTRAINT "ai_questions_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moderation_logs" ADD CONSTRAINT "moderation_logs_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moderation_logs" ADD CONSTRAINT "moderation_logs_target_user_id_users_id_fk" FOREIGN KEY ("target_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_votes" ADD CONSTRAINT "comment_votes_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_votes" ADD CONSTRAINT "comment_votes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_post_id_community_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."community_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_verified_by_users_id_fk" FOREIGN KEY ("verified_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_dna_by_users_id_fk" FOREIGN KEY ("dna_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "community_posts" ADD CONSTRAINT "community_posts_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "community_posts" ADD CONSTRAINT "community_posts_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "community_posts" ADD CONSTRAINT "community_posts_converted_faq_id_faqs_id_fk" FOREIGN KEY ("converted_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "community_posts" ADD CONSTRAINT "community_posts_ai_answer_reviewed_by_users_id_fk" FOREIGN KEY ("ai_answer_reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "community_posts" ADD CONSTRAINT "community_posts_escalation_resolved_by_users_id_fk" FOREIGN KEY ("escalation_resolved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_votes" ADD CONSTRAINT "post_votes_post_id_community_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."community_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_votes" ADD CONSTRAINT "post_votes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD CONSTRAINT "conf_insights_meeting_id_conf_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."conf_meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD CONSTRAINT "conf_insights_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD CONSTRAINT "conf_insights_converted_faq_id_faqs_id_fk" FOREIGN KEY ("converted_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD CONSTRAINT "conf_insights_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conf_meetings" ADD CONSTRAINT "conf_meetings_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conf_meetings" ADD CONSTRAINT "conf_meetings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_insights" ADD CONSTRAINT "document_insights_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_insights" ADD CONSTRAINT "document_insights_promoted_faq_id_faqs_id_fk" FOREIGN KEY ("promoted_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_insights" ADD CONSTRAINT "document_insights_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_insights" ADD CONSTRAINT "document_insights_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD CONSTRAINT "transcript_knowledge_meeting_id_conf_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."conf_meetings"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD CONSTRAINT "transcript_knowledge_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD CONSTRAINT "transcript_knowledge_promoted_faq_id_faqs_id_fk" FOREIGN KEY ("promoted_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD CONSTRAINT "transcript_knowledge_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "badges" ADD CONSTRAINT "badges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "badges" ADD CONSTRAINT "badges_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "badges" ADD CONSTRAINT "badges_awarded_by_users_id_fk" FOREIGN KEY ("awarded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "badges" ADD CONSTRAINT "badges_revoked_by_users_id_fk" FOREIGN KEY ("revoked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reputation_logs" ADD CONSTRAINT "reputation_logs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reputation_logs" ADD CONSTRAINT "reputation_logs_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reputation_logs" ADD CONSTRAINT "reputation_logs_awarded_by_users_id_fk" FOREIGN KEY ("awarded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_requests" ADD CONSTRAINT "support_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_requests" ADD CONSTRAINT "support_requests_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tea_notification_reads" ADD CONSTRAINT "tea_notification_reads_tea_notification_id_tea_notifications_id_fk" FOREIGN KEY ("tea_notification_id") REFERENCES "public"."tea_notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tea_notification_reads" ADD CONSTRAINT "tea_notification_reads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tea_notifications" ADD CONSTRAINT "tea_notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tea_notifications" ADD CONSTRAINT "tea_notifications_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faq_feedback" ADD CONSTRAINT "faq_feedback_faq_id_faqs_id_fk" FOREIGN KEY ("faq_id") REFERENCES "public"."faqs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faq_feedback" ADD CONSTRAINT "faq_feedback_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faq_reports" ADD CONSTRAINT "faq_reports_faq_id_faqs_id_fk" FOREIGN KEY ("faq_id") REFERENCES "public"."faqs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faq_reports" ADD CONSTRAINT "faq_reports_reporter_id_users_id_fk" FOREIGN KEY ("reporter_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faq_reports" ADD CONSTRAINT "faq_reports_resolved_by_users_id_fk" FOREIGN KEY ("resolved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faq_revisions" ADD CONSTRAINT "faq_revisions_faq_id_faqs_id_fk" FOREIGN KEY ("faq_id") REFERENCES "public"."faqs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faq_revisions" ADD CONSTRAINT "faq_revisions_editor_id_users_id_fk" FOREIGN KEY ("editor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faqs" ADD CONSTRAINT "faqs_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faqs" ADD CONSTRAINT "faqs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "faqs" ADD CONSTRAINT "faqs_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fresh_review_logs" ADD CONSTRAINT "fresh_review_logs_faq_id_faqs_id_fk" FOREIGN KEY ("faq_id") REFERENCES "public"."faqs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fresh_review_logs" ADD CONSTRAINT "fresh_review_logs_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fresh_review_votes" ADD CONSTRAINT "fresh_review_votes_faq_id_faqs_id_fk" FOREIGN KEY ("faq_id") REFERENCES "public"."faqs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fresh_review_votes" ADD CONSTRAINT "fresh_review_votes_voter_id_users_id_fk" FOREIGN KEY ("voter_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conf_oauth_states" ADD CONSTRAINT "conf_oauth_states_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pipeline_results" ADD CONSTRAINT "pipeline_results_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pipeline_results" ADD CONSTRAINT "pipeline_results_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "categories" ADD CONSTRAINT "categories_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_settings" ADD CONSTRAINT "program_settings_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_logs" ADD CONSTRAINT "search_logs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_logs" ADD CONSTRAINT "search_logs_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unresolved_searches" ADD CONSTRAINT "unresolved_searches_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unresolved_searches" ADD CONSTRAINT "unresolved_searches_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unresolved_searches" ADD CONSTRAINT "unresolved_searches_resolved_faq_id_faqs_id_fk" FOREIGN KEY ("resolved_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unresolved_searches" ADD CONSTRAINT "unresolved_searches_resolved_by_users_id_fk" FOREIGN KEY ("resolved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_logs_created_idx" ON "admin_logs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "admin_logs_actor_idx" ON "admin_logs" USING btree ("actor_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ai_configs_scope_key" ON "ai_configs" USING btree ("scope");--> statement-breakpoint
CREATE INDEX "ai_questions_batch_idx" ON "ai_questions" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "ai_questions_user_idx" ON "ai_questions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "moderation_logs_created_idx" ON "moderation_logs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "moderation_logs_target_idx" ON "moderation_logs" USING btree ("target_user_id");--> statement-breakpoint
CREATE INDEX "comment_votes_user_idx" ON "comment_votes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "comments_post_idx" ON "comments" USING btree ("post_id","created_at");--> statement-breakpoint
CREATE INDEX "comments_author_idx" ON "comments" USING btree ("author_id");--> statement-breakpoint
CREATE INDEX "community_posts_batch_idx" ON "community_posts" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "community_posts_status_idx" ON "community_posts" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "community_posts_author_idx" ON "community_posts" USING btree ("author_id");--> statement-breakpoint
CREATE INDEX "community_posts_ai_status_idx" ON "community_posts" USING btree ("ai_answer_status");--> statement-breakpoint
CREATE INDEX "community_posts_escalation_idx" ON "community_posts" USING btree ("escalation_status");--> statement-breakpoint
CREATE INDEX "community_posts_embedding_hnsw_idx" ON "community_posts" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "community_posts_search_vector_idx" ON "community_posts" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "post_votes_user_idx" ON "post_votes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "conf_insights_meeting_idx" ON "conf_insights" USING btree ("meeting_id");--> statement-breakpoint
CREATE INDEX "conf_insights_status_idx" ON "conf_insights" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "conf_meetings_conf_meeting_id_key" ON "conf_meetings" USING btree ("conf_meeting_id");--> statement-breakpoint
CREATE INDEX "conf_meetings_batch_idx" ON "conf_meetings" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "conf_meetings_status_idx" ON "conf_meetings" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "document_insights_batch_idx" ON "document_insights" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "document_insights_status_idx" ON "document_insights" USING btree ("status");--> statement-breakpoint
CREATE INDEX "document_insights_embedding_hnsw_idx" ON "document_insights" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "document_insights_search_vector_idx" ON "document_insights" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "transcript_knowledge_batch_idx" ON "transcript_knowledge" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "transcript_knowledge_status_idx" ON "transcript_knowledge" USING btree ("status");--> statement-breakpoint
CREATE INDEX "transcript_knowledge_embedding_hnsw_idx" ON "transcript_knowledge" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "transcript_knowledge_search_vector_idx" ON "transcript_knowledge" USING gin ("search_vector");--> statement-breakpoint
CREATE UNIQUE INDEX "badges_live_key" ON "badges" USING btree ("user_id","name",coalesce("batch_id", '00000000-0000-0000-0000-000000000000'::uuid)) WHERE "badges"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "badges_batch_idx" ON "badges" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "notifications_user_idx" ON "notifications" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "notifications_unread_idx" ON "notifications" USING btree ("user_id") WHERE "notifications"."read_at" is null;--> statement-breakpoint
CREATE INDEX "notifications_batch_idx" ON "notifications" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "reputation_logs_user_idx" ON "reputation_logs" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "reputation_logs_batch_idx" ON "reputation_logs" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "support_requests_batch_idx" ON "support_requests" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "support_requests_user_idx" ON "support_requests" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "tea_notifications_user_idx" ON "tea_notifications" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "tea_notifications_batch_idx" ON "tea_notifications" USING btree ("batch_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "faq_feedback_faq_user_key" ON "faq_feedback" USING btree ("faq_id","user_id");--> statement-breakpoint
CREATE INDEX "faq_reports_faq_idx" ON "faq_reports" USING btree ("faq_id");--> statement-breakpoint
CREATE INDEX "faq_reports_status_idx" ON "faq_reports" USING btree ("status");--> statement-breakpoint
CREATE INDEX "faq_revisions_faq_idx" ON "faq_revisions" USING btree ("faq_id","created_at");--> statement-breakpoint
CREATE INDEX "faqs_batch_status_idx" ON "faqs" USING btree ("batch_id","review_status");--> statement-breakpoint
CREATE INDEX "faqs_last_checked_idx" ON "faqs" USING btree ("review_status","last_checked_at");--> statement-breakpoint
CREATE INDEX "faqs_promotion_idx" ON "faqs" USING btree ("promotion_status","promotion_eligible_at");--> statement-breakpoint
CREATE INDEX "faqs_embedding_hnsw_idx" ON "faqs" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "faqs_search_vector_idx" ON "faqs" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "fresh_review_logs_faq_idx" ON "fresh_review_logs" USING btree ("faq_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "fresh_review_votes_faq_cycle_voter_key" ON "fresh_review_votes" USING btree ("faq_id","cycle","voter_id");--> statement-breakpoint
CREATE UNIQUE INDEX "conf_oauth_states_nonce_key" ON "conf_oauth_states" USING btree ("nonce");--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "refresh_tokens_token_hash_key" ON "refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "refresh_tokens_user_idx" ON "refresh_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_family_idx" ON "refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_expires_at_idx" ON "refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "users_conf_user_id_key" ON "users" USING btree ("conf_user_id") WHERE "users"."conf_user_id" is not null;--> statement-breakpoint
CREATE INDEX "users_role_idx" ON "users" USING btree ("role");--> statement-breakpoint
CREATE INDEX "pipeline_results_pipeline_flagged_checked_idx" ON "pipeline_results" USING btree ("pipeline","flagged","checked_at");--> statement-breakpoint
CREATE INDEX "pipeline_results_target_pipeline_idx" ON "pipeline_results" USING btree ("target_id","pipeline");--> statement-breakpoint
CREATE INDEX "pipeline_results_checked_at_idx" ON "pipeline_results" USING btree ("checked_at");--> statement-breakpoint
CREATE UNIQUE INDEX "batches_slug_key" ON "batches" USING btree ("slug") WHERE "batches"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "batches_one_default_key" ON "batches" USING btree ("is_default") WHERE "batches"."is_default";--> statement-breakpoint
CREATE UNIQUE INDEX "categories_batch_slug_key" ON "categories" USING btree ("batch_id","slug");--> statement-breakpoint
CREATE INDEX "categories_batch_idx" ON "categories" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "search_logs_created_at_idx" ON "search_logs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "search_logs_batch_query_idx" ON "search_logs" USING btree ("batch_id","normalized_query");--> statement-breakpoint
CREATE UNIQUE INDEX "unresolved_searches_open_key" ON "unresolved_searches" USING btree (coalesce("batch_id", '00000000-0000-0000-0000-000000000000'::uuid),"normalized_query") WHERE "unresolved_searches"."status" = 'open';--> statement-breakpoint
CREATE INDEX "unresolved_searches_status_idx" ON "unresolved_searches" USING btree ("status","last_seen_at");