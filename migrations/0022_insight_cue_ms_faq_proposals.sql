-- Insight cue times as numbers: an insight's provenance line kept its cue times as text inside
-- `context` ("[00:01:05-00:01:09] Speaker: ..."); they move to cue_start_ms / cue_end_ms
-- (milliseconds from the start of the recording) and `context` keeps the line itself. And the
-- "update FAQ X" proposal of insights and knowledge rows (proposed_faq_id / proposed_faq_score: an
-- existing FAQ the row matches closely; packages/core/src/knowledge/faq-match.ts).
ALTER TABLE "conf_insights" ADD COLUMN "cue_start_ms" integer;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD COLUMN "cue_end_ms" integer;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD COLUMN "proposed_faq_id" uuid;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD COLUMN "proposed_faq_score" real;--> statement-breakpoint
ALTER TABLE "document_insights" ADD COLUMN "proposed_faq_id" uuid;--> statement-breakpoint
ALTER TABLE "document_insights" ADD COLUMN "proposed_faq_score" real;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD COLUMN "proposed_faq_id" uuid;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD COLUMN "proposed_faq_score" real;--> statement-breakpoint
ALTER TABLE "conf_insights" ADD CONSTRAINT "conf_insights_proposed_faq_id_faqs_id_fk" FOREIGN KEY ("proposed_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_insights" ADD CONSTRAINT "document_insights_proposed_faq_id_faqs_id_fk" FOREIGN KEY ("proposed_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD CONSTRAINT "transcript_knowledge_proposed_faq_id_faqs_id_fk" FOREIGN KEY ("proposed_faq_id") REFERENCES "public"."faqs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
UPDATE "conf_insights" c SET
  "cue_start_ms" = (x.m[1]::int * 3600 + x.m[2]::int * 60 + x.m[3]::int) * 1000,
  "cue_end_ms" = (x.m[4]::int * 3600 + x.m[5]::int * 60 + x.m[6]::int) * 1000,
  "context" = x.m[7]
FROM (SELECT id, regexp_match(context, '^\[(\d+):(\d\d):(\d\d)-(\d+):(\d\d):(\d\d)\] ?(.*)$') AS m FROM "conf_insights") x
WHERE x.id = c.id AND x.m IS NOT NULL;
