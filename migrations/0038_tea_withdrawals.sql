CREATE TABLE "tea_withdrawals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"stream_xid" "xid8" NOT NULL,
	"withdrawn_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tea_withdrawals" ADD CONSTRAINT "tea_withdrawals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;