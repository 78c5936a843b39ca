CREATE INDEX "conf_insights_converted_faq_idx" ON "conf_insights" USING btree ("converted_faq_id") WHERE converted_faq_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "conf_insights_proposed_faq_idx" ON "conf_insights" USING btree ("proposed_faq_id") WHERE proposed_faq_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "document_insights_promoted_faq_idx" ON "document_insights" USING btree ("promoted_faq_id") WHERE promoted_faq_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "document_insights_proposed_faq_idx" ON "document_insights" USING btree ("proposed_faq_id") WHERE proposed_faq_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "transcript_knowledge_promoted_faq_idx" ON "transcript_knowledge" USING btree ("promoted_faq_id") WHERE promoted_faq_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "transcript_knowledge_proposed_faq_idx" ON "transcript_knowledge" USING btree ("proposed_faq_id") WHERE proposed_faq_id IS NOT NULL;