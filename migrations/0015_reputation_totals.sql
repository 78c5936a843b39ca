CREATE TABLE "reputation_totals" (
	"batch_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"period" text NOT NULL,
	"period_start" date NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "reputation_totals_batch_id_period_period_start_user_id_pk" PRIMARY KEY("batch_id","period","period_start","user_id")
);
--> statement-breakpoint
ALTER TABLE "reputation_logs" ADD COLUMN "source_key" text;--> statement-breakpoint
ALTER TABLE "reputation_logs" ADD COLUMN "reverses_id" uuid;--> statement-breakpoint
ALTER TABLE "reputation_logs" ADD COLUMN "reversed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reputation_totals" ADD CONSTRAINT "reputation_totals_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reputation_totals" ADD CONSTRAINT "reputation_totals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reputation_totals_rank_idx" ON "reputation_totals" USING btree ("batch_id","period","period_start","points" DESC NULLS LAST,"user_id");--> statement-breakpoint
CREATE INDEX "reputation_logs_user_batch_idx" ON "reputation_logs" USING btree ("user_id","batch_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "reputation_logs_live_source_key" ON "reputation_logs" USING btree ("source_key") WHERE "reputation_logs"."source_key" is not null and "reputation_logs"."reverses_id" is null and "reputation_logs"."reversed_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "reputation_logs_reverses_key" ON "reputation_logs" USING btree ("reverses_id") WHERE "reputation_logs"."reverses_id" is not null;