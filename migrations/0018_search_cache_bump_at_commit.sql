-- The search cache's generation row (0014) was bumped by statement triggers in the middle of the
-- writing transaction: its row lock was then held to the end of that transaction, so every content
-- write serialised on it for its whole length, and a transaction that took the generation row and then
-- another row deadlocked with one that held that row and then wanted the generation (a default switch
-- racing a program edit did). The bump now runs at commit, from deferred constraint triggers, once per
-- transaction (a transaction-local flag): the generation row is the last lock a writer takes and is
-- held only for its commit, so it can no longer be part of a deadlock, and readers still see the new
-- generation exactly when the write becomes visible.
DROP TRIGGER "faqs_search_cache_insert" ON "faqs";
--> statement-breakpoint
DROP TRIGGER "faqs_search_cache_delete" ON "faqs";
--> statement-breakpoint
DROP TRIGGER "faqs_search_cache_update" ON "faqs";
--> statement-breakpoint
DROP TRIGGER "posts_search_cache_insert" ON "community_posts";
--> statement-breakpoint
DROP TRIGGER "posts_search_cache_delete" ON "community_posts";
--> statement-breakpoint
DROP TRIGGER "posts_search_cache_update" ON "community_posts";
--> statement-breakpoint
DROP TRIGGER "batches_search_cache_delete" ON "batches";
--> statement-breakpoint
DROP TRIGGER "batches_search_cache_update" ON "batches";
--> statement-breakpoint
DROP FUNCTION "search_cache_bump_faqs"();
--> statement-breakpoint
DROP FUNCTION "search_cache_bump_posts"();
--> statement-breakpoint
DROP FUNCTION "search_cache_bump_batches"();
--> statement-breakpoint
DROP FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE FUNCTION "search_cache_bump_at_commit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('cfaq.search_cache_bumped', true) IS DISTINCT FROM '1' THEN
    PERFORM set_config('cfaq.search_cache_bumped', '1', true);
    UPDATE search_cache_generation SET value = value + 1 WHERE id = 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "faqs_search_cache_write" AFTER INSERT OR DELETE ON "faqs"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "faqs_search_cache_update" AFTER UPDATE ON "faqs"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id OR OLD.question IS DISTINCT FROM NEW.question
    OR OLD.answer IS DISTINCT FROM NEW.answer OR OLD.review_status IS DISTINCT FROM NEW.review_status
    OR OLD.embedding IS DISTINCT FROM NEW.embedding)
  EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "posts_search_cache_write" AFTER INSERT OR DELETE ON "community_posts"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "posts_search_cache_update" AFTER UPDATE ON "community_posts"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id OR OLD.title IS DISTINCT FROM NEW.title
    OR OLD.body IS DISTINCT FROM NEW.body OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at
    OR OLD.embedding IS DISTINCT FROM NEW.embedding)
  EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "batches_search_cache_delete" AFTER DELETE ON "batches"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "search_cache_bump_at_commit"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "batches_search_cache_update" AFTER UPDATE ON "batches"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.is_default IS DISTINCT FROM NEW.is_default OR OLD.archived_at IS DISTINCT FROM NEW.archived_at
    OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION "search_cache_bump_at_commit"();
