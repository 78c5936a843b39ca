CREATE TABLE "answer_time_daily" (
	"day" date NOT NULL,
	"batch_id" uuid,
	"bucket" integer NOT NULL,
	"posts" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "answer_time_daily_day_idx" ON "answer_time_daily" USING btree ("day","batch_id","bucket","posts");--> statement-breakpoint
CREATE INDEX "answer_time_daily_batch_idx" ON "answer_time_daily" USING btree ("batch_id","day","bucket","posts");--> statement-breakpoint
-- The answer-time bucket of a post: 4 per doubling of the seconds from creation to the first answer
-- (bucket 0: under a second; 48: about an hour; 68: about a day and a half). One definition for the rollup, the live
-- days and the index below, so they always agree.
CREATE FUNCTION "answer_time_bucket"(created timestamptz, answered timestamptz) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN floor(4 * ln(1 + greatest(0, extract(epoch from (answered - created))::float8)) / ln(2::float8))::integer;
--> statement-breakpoint
-- A bucket's answered posts of a range, in creation order, with what the exact value needs (index-only).
CREATE INDEX "community_posts_answer_time_idx" ON "community_posts"
  ("answer_time_bucket"("created_at", "answered_at"), "created_at") INCLUDE ("batch_id", "answered_at")
  WHERE "answered_at" IS NOT NULL AND "deleted_at" IS NULL;
--> statement-breakpoint
-- Days already rolled up: their buckets from the posts (the next rollup run keeps them).
INSERT INTO "answer_time_daily" ("day", "batch_id", "bucket", "posts")
SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.batch_id, "answer_time_bucket"(p.created_at, p.answered_at), count(*)
FROM "community_posts" p
WHERE p.answered_at IS NOT NULL AND p.deleted_at IS NULL
  AND (p.created_at AT TIME ZONE 'UTC')::date <= (SELECT rolled_through FROM analytics_rollups WHERE name = 'community')
GROUP BY 1, 2, 3;
