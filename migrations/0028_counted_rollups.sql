CREATE TABLE "reputation_point_counts" (
	"batch_id" uuid NOT NULL,
	"period" text NOT NULL,
	"period_start" date NOT NULL,
	"points" integer NOT NULL,
	"users" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_counts" (
	"role" "user_role" NOT NULL,
	"status" "user_status" NOT NULL,
	"users" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "reputation_point_counts_idx" ON "reputation_point_counts" USING btree ("batch_id","period","period_start","points","users");--> statement-breakpoint
-- Appended counts (statement triggers with transition tables: a bulk write appends one row per value
-- it moves, not one per account). Nothing is updated, so concurrent writers never wait on a count.
CREATE FUNCTION "user_counts_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO user_counts (role, status, users) SELECT role, status, count(*) FROM new_rows GROUP BY 1, 2;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO user_counts (role, status, users) SELECT role, status, -count(*) FROM old_rows GROUP BY 1, 2;
  ELSE
    INSERT INTO user_counts (role, status, users)
      SELECT role, status, sum(n) FROM (
        SELECT role, status, -1 AS n FROM old_rows UNION ALL SELECT role, status, 1 FROM new_rows
      ) x GROUP BY 1, 2 HAVING sum(n) <> 0;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_counts_insert" AFTER INSERT ON "users" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "user_counts_moved"();
--> statement-breakpoint
CREATE TRIGGER "users_counts_delete" AFTER DELETE ON "users" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "user_counts_moved"();
--> statement-breakpoint
CREATE TRIGGER "users_counts_update" AFTER UPDATE ON "users" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "user_counts_moved"();
--> statement-breakpoint
INSERT INTO "user_counts" ("role", "status", "users") SELECT "role", "status", count(*)::int FROM "users" GROUP BY 1, 2;
--> statement-breakpoint
-- Users per positive points value of each board; a rank is 1 + the users above.
CREATE FUNCTION "reputation_point_counts_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO reputation_point_counts (batch_id, period, period_start, points, users)
      SELECT batch_id, period, period_start, points, count(*) FROM new_rows WHERE points > 0 GROUP BY 1, 2, 3, 4;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO reputation_point_counts (batch_id, period, period_start, points, users)
      SELECT batch_id, period, period_start, points, -count(*) FROM old_rows WHERE points > 0 GROUP BY 1, 2, 3, 4;
  ELSE
    INSERT INTO reputation_point_counts (batch_id, period, period_start, points, users)
      SELECT batch_id, period, period_start, points, sum(n) FROM (
        SELECT batch_id, period, period_start, points, -1 AS n FROM old_rows WHERE points > 0
        UNION ALL SELECT batch_id, period, period_start, points, 1 FROM new_rows WHERE points > 0
      ) x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "reputation_totals_counts_insert" AFTER INSERT ON "reputation_totals" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "reputation_point_counts_moved"();
--> statement-breakpoint
CREATE TRIGGER "reputation_totals_counts_delete" AFTER DELETE ON "reputation_totals" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "reputation_point_counts_moved"();
--> statement-breakpoint
CREATE TRIGGER "reputation_totals_counts_update" AFTER UPDATE ON "reputation_totals" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "reputation_point_counts_moved"();
--> statement-breakpoint
INSERT INTO "reputation_point_counts" ("batch_id", "period", "period_start", "points", "users")
  SELECT "batch_id", "period", "period_start", "points", count(*)::int FROM "reputation_totals" WHERE "points" > 0 GROUP BY 1, 2, 3, 4;
