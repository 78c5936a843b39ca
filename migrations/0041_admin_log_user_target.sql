-- Reputation actions wrote their admin-log target type as 'user' while every other action writes 'User':
-- one spelling, so a filter on the target type finds them all.
UPDATE "admin_logs" SET "target_type" = 'User' WHERE "target_type" = 'user';
