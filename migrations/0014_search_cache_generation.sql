-- The search result cache's generation: one counter that moves whenever a committed write can change
-- what a search returns or who may see it (a FAQ written, edited, moved to or from draft, embedded or
-- deleted; a post written, edited, embedded or deleted; a program archived, deleted or made the
-- default). Every API process compares a cached entry's generation with this row before serving it,
-- so a write through one process is never answered from another's cache. Statement-level triggers
-- fire once per statement, and updates count only when a column that search reads changed (votes,
-- view counts and review bookkeeping do not empty the caches).
CREATE TABLE "search_cache_generation" (
	"id" smallint PRIMARY KEY DEFAULT 1 CHECK ("id" = 1),
	"value" bigint NOT NULL DEFAULT 0
);
--> statement-breakpoint
INSERT INTO "search_cache_generation" ("id", "value") VALUES (1, 0);
--> statement-breakpoint
CREATE FUNCTION "search_cache_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_cache_generation SET value = value + 1 WHERE id = 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "search_cache_bump_faqs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.batch_id IS DISTINCT FROM n.batch_id OR o.question IS DISTINCT FROM n.question
      OR o.answer IS DISTINCT FROM n.answer OR o.review_status IS DISTINCT FROM n.review_status
      OR o.embedding IS DISTINCT FROM n.embedding
  ) THEN
    UPDATE search_cache_generation SET value = value + 1 WHERE id = 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "search_cache_bump_posts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.batch_id IS DISTINCT FROM n.batch_id OR o.title IS DISTINCT FROM n.title
      OR o.body IS DISTINCT FROM n.body OR o.deleted_at IS DISTINCT FROM n.deleted_at
      OR o.embedding IS DISTINCT FROM n.embedding
  ) THEN
    UPDATE search_cache_generation SET value = value + 1 WHERE id = 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "search_cache_bump_batches"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.is_default IS DISTINCT FROM n.is_default OR o.archived_at IS DISTINCT FROM n.archived_at
      OR o.deleted_at IS DISTINCT FROM n.deleted_at
  ) THEN
    UPDATE search_cache_generation SET value = value + 1 WHERE id = 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "faqs_search_cache_insert" AFTER INSERT ON "faqs" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "faqs_search_cache_delete" AFTER DELETE ON "faqs" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "faqs_search_cache_update" AFTER UPDATE ON "faqs" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump_faqs"();
--> statement-breakpoint
CREATE TRIGGER "posts_search_cache_insert" AFTER INSERT ON "community_posts" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "posts_search_cache_delete" AFTER DELETE ON "community_posts" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "posts_search_cache_update" AFTER UPDATE ON "community_posts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump_posts"();
--> statement-breakpoint
CREATE TRIGGER "batches_search_cache_delete" AFTER DELETE ON "batches" FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump"();
--> statement-breakpoint
CREATE TRIGGER "batches_search_cache_update" AFTER UPDATE ON "batches" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "search_cache_bump_batches"();
