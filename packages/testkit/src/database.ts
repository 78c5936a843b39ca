import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPool, MIGRATIONS_FOLDER, runMigrations } from '@cfaq/db';
import pg from 'pg';

/**
 * Where the integration tests' PostgreSQL is: TEST_DATABASE_URL, else the local server on
 * 127.0.0.1:5432, else (where a Docker engine runs) a pgvector container from testcontainers.
 */
export async function resolveServerUrl(): Promise<{ url: string; stop?: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL };
  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await reachable(local)) return { url: local };
  if (existsSync('/var/run/docker.sock')) {
    const moduleName = '@testcontainers/postgresql';
    const { PostgreSqlContainer } = (await import(moduleName)) as typeof import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('pgvector/pgvector:pg16').start();
    return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
  }
  throw new Error('No PostgreSQL for tests: set TEST_DATABASE_URL, run `npm run db:setup`, or start a Docker engine');
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** The template's name carries a hash of the migrations, so a changed migration builds a new one. */
export function templateName(folder = MIGRATIONS_FOLDER): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    hash.update(file).update(readFileSync(join(folder, file)));
  }
  return `cfaq_tpl_${hash.digest('hex').slice(0, 12)}`;
}

/** Creates and migrates the template database once; concurrent runs wait on an advisory lock. */
export async function ensureTemplate(serverUrl: string): Promise<string> {
  const name = templateName();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      const building = `${name}_build_${randomBytes(3).toString('hex')}`;
      await admin.query(`create database "${building}"`);
      const pool = createPool({ connectionString: withDatabase(serverUrl, building), max: 2 });
      try {
        await runMigrations(pool);
      } finally {
        await pool.end();
      }
      // Built under another name and renamed, so no run ever clones a half-migrated template.
      await admin.query(`alter database "${building}" rename to "${name}"`);
    }
    await admin.query('select pg_advisory_unlock(hashtext($1))', [name]);
    return name;
  } finally {
    await admin.end();
  }
}

/** A fresh database cloned from the template: each test file gets its own, so files run in parallel. */
export async function cloneDatabase(
  serverUrl: string,
  template: string,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database "${name}" template "${template}"`);
        break;
      } catch (err) {
        // "source database is being accessed by other users": another clone is reading it; retry.
        if (attempt > 50 || (err as { code?: string }).code !== '55006') throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Drops the databases a run left behind (a crashed file skips its own afterAll). */
export async function dropDatabases(serverUrl: string, prefix: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${prefix}%`]);
    for (const r of rows) await c.query(`drop database if exists "${r.datname}" with (force)`);
  } finally {
    await c.end();
  }
}
