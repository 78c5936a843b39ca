ALTER TABLE "faq_revisions" ADD COLUMN "status_before" "faq_review_status";--> statement-breakpoint
-- Earlier revisions: the status before each is the `from` of the first status change at or after it,
-- else the FAQ's status now (moves made outside an edit, such as reviews, are not in revisions).
UPDATE "faq_revisions" r SET "status_before" = coalesce(
  (SELECT (r2."changes"->'reviewStatus'->>'from')::"faq_review_status" FROM "faq_revisions" r2
   WHERE r2."faq_id" = r."faq_id" AND r2."changes" ? 'reviewStatus' AND (r2."created_at", r2."id") >= (r."created_at", r."id")
   ORDER BY r2."created_at", r2."id" LIMIT 1),
  (SELECT f."review_status" FROM "faqs" f WHERE f."id" = r."faq_id"));
