-- One open report per user per FAQ. Earlier duplicates (the same reporter's later open reports on the
-- same FAQ) are dismissed first, so the unique index can be built; the first report stays open.
UPDATE "faq_reports" r SET "status" = 'dismissed'
WHERE r."status" = 'open' AND r."reporter_id" IS NOT NULL AND EXISTS (
  SELECT 1 FROM "faq_reports" o
  WHERE o."faq_id" = r."faq_id" AND o."reporter_id" = r."reporter_id" AND o."status" = 'open'
    AND (o."created_at", o."id") < (r."created_at", r."id")
);--> statement-breakpoint
CREATE UNIQUE INDEX "faq_reports_open_per_reporter_key" ON "faq_reports" USING btree ("faq_id","reporter_id") WHERE "faq_reports"."status" = 'open';
