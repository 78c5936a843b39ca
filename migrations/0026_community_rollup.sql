CREATE TABLE "analytics_dirty_days" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "analytics_dirty_days_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"day" date NOT NULL
);
--> statement-breakpoint
CREATE TABLE "community_daily_stats" (
	"day" date NOT NULL,
	"batch_id" uuid,
	"posts" integer NOT NULL,
	"answered" integer NOT NULL,
	"ai_attempted" integer NOT NULL,
	"ai_auto_approved" integer NOT NULL,
	"ai_reviewed" integer NOT NULL,
	"ai_approved" integer NOT NULL,
	"escalated" integer NOT NULL,
	"ai_awaiting" integer NOT NULL,
	"status_open" integer NOT NULL,
	"status_answered" integer NOT NULL,
	"status_pending" integer NOT NULL,
	"status_closed" integer NOT NULL,
	"comments" integer NOT NULL,
	"comments_accepted" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signup_daily_stats" (
	"day" date PRIMARY KEY NOT NULL,
	"users" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_daily_activity" (
	"day" date NOT NULL,
	"batch_id" uuid,
	"user_id" uuid NOT NULL,
	"posts" integer NOT NULL,
	"comments" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "analytics_dirty_days_day_idx" ON "analytics_dirty_days" USING btree ("day");--> statement-breakpoint
CREATE UNIQUE INDEX "community_daily_stats_key" ON "community_daily_stats" USING btree ("day",coalesce("batch_id", '00000000-0000-0000-0000-000000000000'::uuid));--> statement-breakpoint
CREATE INDEX "user_daily_activity_day_idx" ON "user_daily_activity" USING btree ("day","user_id","batch_id","posts","comments");--> statement-breakpoint
CREATE INDEX "user_daily_activity_batch_idx" ON "user_daily_activity" USING btree ("batch_id","day","user_id","posts","comments");--> statement-breakpoint
-- Every change to what the community rollup counts notes the UTC day it counts in (old and new),
-- so the dashboards answer that day live until the worker has recomputed it. Append-only rows: no
-- row is shared between writers, so no lock is taken and no deadlock is possible.
CREATE FUNCTION "analytics_mark_day"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO analytics_dirty_days (day) VALUES ((OLD.created_at AT TIME ZONE 'UTC')::date);
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND OLD.created_at IS DISTINCT FROM NEW.created_at) THEN
    INSERT INTO analytics_dirty_days (day) VALUES ((NEW.created_at AT TIME ZONE 'UTC')::date);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A post moved to another program moves its comments (they count in their post's program).
CREATE FUNCTION "analytics_mark_comment_days"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_dirty_days (day)
    SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date FROM comments WHERE post_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "community_posts_analytics_moved" AFTER UPDATE ON "community_posts" FOR EACH ROW
  WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id) EXECUTE FUNCTION "analytics_mark_comment_days"();
--> statement-breakpoint
CREATE TRIGGER "community_posts_analytics_write" AFTER INSERT OR DELETE ON "community_posts"
  FOR EACH ROW EXECUTE FUNCTION "analytics_mark_day"();
--> statement-breakpoint
CREATE TRIGGER "community_posts_analytics_update" AFTER UPDATE ON "community_posts" FOR EACH ROW
  WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.batch_id IS DISTINCT FROM NEW.batch_id
    OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.status IS DISTINCT FROM NEW.status
    OR OLD.answered_at IS DISTINCT FROM NEW.answered_at OR OLD.ai_answer_status IS DISTINCT FROM NEW.ai_answer_status
    OR OLD.ai_answer_reviewed_at IS DISTINCT FROM NEW.ai_answer_reviewed_at
    OR OLD.escalation_status IS DISTINCT FROM NEW.escalation_status OR OLD.author_id IS DISTINCT FROM NEW.author_id)
  EXECUTE FUNCTION "analytics_mark_day"();
--> statement-breakpoint
CREATE TRIGGER "comments_analytics_write" AFTER INSERT OR DELETE ON "comments"
  FOR EACH ROW EXECUTE FUNCTION "analytics_mark_day"();
--> statement-breakpoint
CREATE TRIGGER "comments_analytics_update" AFTER UPDATE ON "comments" FOR EACH ROW
  WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.post_id IS DISTINCT FROM NEW.post_id
    OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.is_accepted IS DISTINCT FROM NEW.is_accepted
    OR OLD.author_id IS DISTINCT FROM NEW.author_id)
  EXECUTE FUNCTION "analytics_mark_day"();
--> statement-breakpoint
CREATE TRIGGER "users_analytics_write" AFTER INSERT OR DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "analytics_mark_day"();
--> statement-breakpoint
CREATE TRIGGER "users_analytics_update" AFTER UPDATE ON "users" FOR EACH ROW
  WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at)
  EXECUTE FUNCTION "analytics_mark_day"();
