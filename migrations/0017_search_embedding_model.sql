ALTER TABLE "community_posts" ADD COLUMN "embedding_model" text;--> statement-breakpoint
ALTER TABLE "document_insights" ADD COLUMN "embedding_model" text;--> statement-breakpoint
ALTER TABLE "transcript_knowledge" ADD COLUMN "embedding_model" text;--> statement-breakpoint
ALTER TABLE "faqs" ADD COLUMN "embedding_model" text;