CREATE TABLE "user_activity_totals" (
	"scope" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"total" integer NOT NULL,
	CONSTRAINT "user_activity_totals_scope_user_id_pk" PRIMARY KEY("scope","user_id")
);
--> statement-breakpoint
CREATE INDEX "user_activity_totals_rank_idx" ON "user_activity_totals" USING btree ("scope","total" DESC NULLS LAST,"user_id");--> statement-breakpoint
CREATE INDEX "user_daily_activity_user_idx" ON "user_daily_activity" USING btree ("user_id","day","batch_id","posts","comments");--> statement-breakpoint
INSERT INTO "user_activity_totals" ("scope", "user_id", "total")
SELECT '00000000-0000-0000-0000-000000000000'::uuid, user_id, sum(posts + comments) FROM "user_daily_activity" GROUP BY user_id
UNION ALL
SELECT batch_id, user_id, sum(posts + comments) FROM "user_daily_activity" WHERE batch_id IS NOT NULL GROUP BY batch_id, user_id;
