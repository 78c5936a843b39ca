CREATE TABLE "post_escalation_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"post_id" uuid NOT NULL,
	"batch_id" uuid,
	"action" text NOT NULL,
	"from_status" text,
	"to_status" text,
	"actor_id" uuid,
	"reason" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "pending_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "first_responder_id" uuid;--> statement-breakpoint
ALTER TABLE "community_posts" ADD COLUMN "first_responded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "post_escalation_logs" ADD CONSTRAINT "post_escalation_logs_post_id_community_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."community_posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_escalation_logs" ADD CONSTRAINT "post_escalation_logs_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_escalation_logs" ADD CONSTRAINT "post_escalation_logs_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "post_escalation_logs_created_idx" ON "post_escalation_logs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "post_escalation_logs_post_idx" ON "post_escalation_logs" USING btree ("post_id","created_at");--> statement-breakpoint
ALTER TABLE "community_posts" ADD CONSTRAINT "community_posts_first_responder_id_users_id_fk" FOREIGN KEY ("first_responder_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;