-- Counters of the security limiters (login failures, registrations, password changes, two-factor
-- attempts, identity creations), shared by every API process on this database so a limit holds
-- however many processes serve the traffic. One row per limiter key (a SHA-256 of the limiter, the
-- route and the client or account: no address or email in plain text) and window; rows whose window
-- ended are reset on their next hit and pruned by the API now and then. The per-request burst limiter
-- stays in each process's memory.
CREATE TABLE "rate_limit_counters" (
	"key" text PRIMARY KEY,
	"hits" integer NOT NULL,
	"resets_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limit_counters_resets_at_idx" ON "rate_limit_counters" ("resets_at");
