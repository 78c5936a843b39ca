import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type pg from 'pg';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations', import.meta.url));

/**
 * Applies pending migrations, drizzle's way (the `drizzle.__drizzle_migrations` journal, one row per
 * applied migration keyed by its folder timestamp), in ONE transaction on one connection that first
 * takes a transaction-scoped advisory lock. Concurrent starters (API and several workers) therefore
 * run each migration once: the second waits, then finds nothing to do. A session-level lock would
 * not do: on the embedded database every connection shares one PGlite session, where such a lock is
 * re-entrant for everyone; a transaction there runs alone from BEGIN to COMMIT.
 */
export async function runMigrations(pool: pg.Pool, folder = MIGRATIONS_FOLDER): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const client = await pool.connect();
  try {
    await client.query('begin');
    try {
      await client.query('select pg_advisory_xact_lock(hashtext($1))', ['community-faq:migrations']);
      await client.query('create schema if not exists drizzle');
      await client.query(
        'create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)',
      );
      const { rows } = await client.query<{ created_at: string }>(
        'select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1',
      );
      const last = rows[0] ? Number(rows[0].created_at) : null;
      for (const m of migrations) {
        if (last !== null && last >= m.folderMillis) continue;
        for (const statement of m.sql) if (statement.trim()) await client.query(statement);
        await client.query('insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)', [m.hash, m.folderMillis]);
      }
      await client.query('commit');
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}
