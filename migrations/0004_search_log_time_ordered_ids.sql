-- UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, version 7, then random bits. Keys that grow with
-- time append to the right edge of a primary-key index instead of dirtying a random page per insert.
-- PostgreSQL 18 has uuidv7(); this works on 15 and up.
CREATE OR REPLACE FUNCTION uuid_v7(ts timestamptz DEFAULT clock_timestamp()) RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM ts) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;--> statement-breakpoint
ALTER TABLE "search_logs" ALTER COLUMN "id" SET DEFAULT uuid_v7();
