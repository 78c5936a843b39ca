import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';
import { createDb } from './client.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations', import.meta.url));

/**
 * Applies pending migrations. Concurrent starters (API and several workers) serialise on an advisory
 * lock so each migration runs once; a second run finds nothing to do.
 */
export async function runMigrations(pool: pg.Pool, folder = MIGRATIONS_FOLDER): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', ['community-faq:migrations']);
    try {
      await migrate(createDb(pool), { migrationsFolder: folder });
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', ['community-faq:migrations']);
    }
  } finally {
    client.release();
  }
}
