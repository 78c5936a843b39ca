CREATE TABLE "user_active_days" (
	"scope" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"prev_day" date,
	CONSTRAINT "user_active_days_scope_user_id_day_pk" PRIMARY KEY("scope","user_id","day")
);
--> statement-breakpoint
CREATE INDEX "user_active_days_range_idx" ON "user_active_days" USING btree ("scope","day","prev_day");--> statement-breakpoint
-- Days already rolled up: their active days come from user_daily_activity (one row per user, day and
-- program), every program together under the nil uuid, each program under its id, with the previous
-- active day of the same user and scope.
INSERT INTO "user_active_days" ("scope", "user_id", "day", "prev_day")
SELECT scope, user_id, day, lag(day) OVER (PARTITION BY scope, user_id ORDER BY day)
FROM (
  SELECT DISTINCT '00000000-0000-0000-0000-000000000000'::uuid AS scope, user_id, day FROM "user_daily_activity"
  UNION ALL
  SELECT DISTINCT batch_id, user_id, day FROM "user_daily_activity" WHERE batch_id IS NOT NULL
) x;
