-- The default program exists from the first migration on, and every program-scoped row that has
-- no program is backfilled to it (spec, "Program scoping"). Safe to run on a database with data.
INSERT INTO "batches" ("name", "slug", "description", "is_default")
SELECT 'Default', 'default', 'The default program', true
WHERE NOT EXISTS (SELECT 1 FROM "batches" WHERE "is_default");
--> statement-breakpoint
DO $$
DECLARE
  default_id uuid := (SELECT "id" FROM "batches" WHERE "is_default" LIMIT 1);
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    'community_posts', 'conf_meetings', 'document_insights', 'transcript_knowledge', 'badges',
    'reputation_logs', 'search_logs', 'unresolved_searches', 'notifications', 'tea_notifications',
    'support_requests', 'ai_questions'
  ] LOOP
    EXECUTE format('UPDATE %I SET batch_id = $1 WHERE batch_id IS NULL', t) USING default_id;
  END LOOP;
END $$;
