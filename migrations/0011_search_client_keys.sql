-- Who searched, so suggestions, trending and the public unresolved list publish a query only once
-- SEARCH_SUGGEST_MIN_USERS distinct users or clients searched it. Rows written before carry no key
-- and so count for nobody. Nullable column and constant default: no table rewrite.
ALTER TABLE "search_logs" ADD COLUMN "client_key" text;--> statement-breakpoint
ALTER TABLE "unresolved_searches" ADD COLUMN "client_keys" text[] DEFAULT '{}'::text[] NOT NULL;
