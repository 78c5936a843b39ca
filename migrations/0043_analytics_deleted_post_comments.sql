-- A deleted post's comments no longer count in the community dashboards (the post never did). Deleting
-- or restoring a post therefore changes its comments' days too: mark them, as a move to another program
-- does (same function, analytics_mark_comment_days from 0026, one more condition on its trigger).
DROP TRIGGER "community_posts_analytics_moved" ON "community_posts";
--> statement-breakpoint
CREATE TRIGGER "community_posts_analytics_moved" AFTER UPDATE ON "community_posts" FOR EACH ROW
  WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION "analytics_mark_comment_days"();
--> statement-breakpoint
-- Days rolled up before this migration counted the comments of posts deleted since: read them live until
-- the next analytics.rollup run recomputes them.
INSERT INTO "analytics_dirty_days" ("day")
  SELECT DISTINCT (c.created_at AT TIME ZONE 'UTC')::date FROM "comments" c
    JOIN "community_posts" p ON p.id = c.post_id WHERE p.deleted_at IS NOT NULL;
