-- The order of GET /notifications/stream (packages/core/src/notifications/stream.ts): the id of the
-- transaction that wrote the row. created_at (the transaction's start) is no order to stream by: a
-- transaction that started first may commit last, behind a row the stream already sent.
ALTER TABLE "notifications" ADD COLUMN "stream_xid" "xid8";--> statement-breakpoint
ALTER TABLE "tea_notifications" ADD COLUMN "stream_xid" "xid8";--> statement-breakpoint
-- Rows written before this migration keep the stream's old order, (created_at, kind, id) across both
-- tables, as ids just below this transaction's: a client resuming across the upgrade with a
-- Last-Event-ID gets what followed that event, and nothing twice.
WITH "old" AS (
  SELECT 'notification' AS "kind", "id", "created_at" FROM "notifications"
  UNION ALL
  SELECT 'tea', "id", "created_at" FROM "tea_notifications"
), "ranked" AS (
  SELECT "kind", "id",
    greatest(pg_current_xact_id()::text::bigint - 1 - count(*) OVER () + row_number() OVER (ORDER BY "created_at", "kind", "id"), 0)::text::xid8 AS "xid"
  FROM "old"
), "notes" AS (
  UPDATE "notifications" "n" SET "stream_xid" = "r"."xid" FROM "ranked" "r" WHERE "r"."kind" = 'notification' AND "r"."id" = "n"."id"
)
UPDATE "tea_notifications" "t" SET "stream_xid" = "r"."xid" FROM "ranked" "r" WHERE "r"."kind" = 'tea' AND "r"."id" = "t"."id";--> statement-breakpoint
ALTER TABLE "notifications" ALTER COLUMN "stream_xid" SET DEFAULT pg_current_xact_id();--> statement-breakpoint
ALTER TABLE "notifications" ALTER COLUMN "stream_xid" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "tea_notifications" ALTER COLUMN "stream_xid" SET DEFAULT pg_current_xact_id();--> statement-breakpoint
ALTER TABLE "tea_notifications" ALTER COLUMN "stream_xid" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "notifications_stream_idx" ON "notifications" USING btree ("user_id","stream_xid","id");--> statement-breakpoint
CREATE INDEX "tea_notifications_stream_idx" ON "tea_notifications" USING btree ("user_id","stream_xid","id");--> statement-breakpoint
CREATE INDEX "tea_notifications_stream_wide_idx" ON "tea_notifications" USING btree ("stream_xid","id") WHERE "tea_notifications"."user_id" is null;
