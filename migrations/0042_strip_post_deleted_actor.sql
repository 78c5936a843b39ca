-- A post_deleted notification no longer names the staff member who removed the post (the author's own
-- rows and their export never name the acting staff member); the ones written before lose it too.
UPDATE "notifications" SET "data" = "data" - 'deletedBy' WHERE "kind" = 'post_deleted' AND "data" ? 'deletedBy';
