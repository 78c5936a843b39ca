-- The moderation log keeps whom an entry was about and who acted after either account is deleted (as
-- the admin log keeps its ids): ON DELETE SET NULL wiped them, and the GET /moderation/logs?targetId=
-- of a deleted user found nothing.
ALTER TABLE "moderation_logs" DROP CONSTRAINT "moderation_logs_actor_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "moderation_logs" DROP CONSTRAINT "moderation_logs_target_user_id_users_id_fk";
