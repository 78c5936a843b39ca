CREATE TABLE "reputation_board_sizes" (
	"batch_id" uuid NOT NULL,
	"period" text NOT NULL,
	"period_start" date NOT NULL,
	"users" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "reputation_board_sizes_batch_id_period_period_start_pk" PRIMARY KEY("batch_id","period","period_start")
);
--> statement-breakpoint
ALTER TABLE "reputation_board_sizes" ADD CONSTRAINT "reputation_board_sizes_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A board's size moves when a totals row's points cross zero. The trigger runs at commit (deferred,
-- as the search cache's bump does since 0018): the size row is a hot row per program and period, and
-- taken at commit it is the writer's last lock, held only for the commit, so it cannot deadlock
-- with the rows a vote or an acceptance locks before. Each event carries its own OLD and NEW, so two
-- changes of one row in a transaction add up.
CREATE FUNCTION "reputation_board_size"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.points > 0 THEN
    UPDATE reputation_board_sizes SET users = users - 1
      WHERE batch_id = OLD.batch_id AND period = OLD.period AND period_start = OLD.period_start;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.points > 0 THEN
    INSERT INTO reputation_board_sizes (batch_id, period, period_start, users)
      VALUES (NEW.batch_id, NEW.period, NEW.period_start, 1)
      ON CONFLICT (batch_id, period, period_start) DO UPDATE SET users = reputation_board_sizes.users + 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "reputation_totals_board_insert" AFTER INSERT ON "reputation_totals"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.points > 0) EXECUTE FUNCTION "reputation_board_size"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "reputation_totals_board_delete" AFTER DELETE ON "reputation_totals"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.points > 0) EXECUTE FUNCTION "reputation_board_size"();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "reputation_totals_board_update" AFTER UPDATE ON "reputation_totals"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN ((OLD.points > 0) IS DISTINCT FROM (NEW.points > 0) OR OLD.batch_id IS DISTINCT FROM NEW.batch_id
    OR OLD.period IS DISTINCT FROM NEW.period OR OLD.period_start IS DISTINCT FROM NEW.period_start)
  EXECUTE FUNCTION "reputation_board_size"();
--> statement-breakpoint
INSERT INTO "reputation_board_sizes" ("batch_id", "period", "period_start", "users")
  SELECT "batch_id", "period", "period_start", count(*)::int FROM "reputation_totals" WHERE "points" > 0 GROUP BY 1, 2, 3;
