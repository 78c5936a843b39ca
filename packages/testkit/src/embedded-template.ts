import { createHash, randomBytes } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool, runMigrations } from '@cfaq/db';
import { openEmbeddedDatabase } from '@cfaq/db/embedded';
import { templateName } from './database.js';

/**
 * A PGlite folder made once per machine and copied for each test that needs an embedded database.
 * Creating one runs initdb inside WebAssembly (10-40 s of CPU); copying a closed folder takes
 * milliseconds. `bare` is a fresh cluster, `migrated` has every migration applied. The cache key
 * holds the PGlite version and, for `migrated`, the migrations' hash, so a change builds a new one.
 * The test of a first `npm start` (apps/api/test/embedded-start.test.ts) keeps creating its own from nothing.
 */
export type EmbeddedTemplate = 'bare' | 'migrated';

const pgliteVersion = (): string => {
  const require = createRequire(new URL('../../db/package.json', import.meta.url));
  try {
    return (JSON.parse(readFileSync(require.resolve('@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
};

function templateDir(kind: EmbeddedTemplate): string {
  const key = createHash('sha256')
    .update(pgliteVersion())
    .update(kind === 'migrated' ? templateName() : 'bare')
    .digest('hex')
    .slice(0, 12);
  return join(tmpdir(), `cfaq-pglite-${kind}-${key}`);
}

/** Waits for (or takes) the build lock; a lock left by a dead process is taken over. */
async function withBuildLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8') || 0);
      let alive = pid > 0;
      try {
        if (alive) process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (pid > 0 && !alive) rmSync(lockPath, { force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

async function ensureTemplate(kind: EmbeddedTemplate): Promise<string> {
  const dir = templateDir(kind);
  if (existsSync(join(dir, 'pglite'))) return dir;
  return withBuildLock(`${dir}.lock`, async () => {
    if (existsSync(join(dir, 'pglite'))) return dir;
    // Built under another name and renamed, so no test ever copies a half-built folder.
    const building = `${dir}.build-${randomBytes(3).toString('hex')}`;
    mkdirSync(building, { recursive: true });
    if (kind === 'migrated') cpSync(join(await ensureTemplate('bare'), 'pglite'), join(building, 'pglite'), { recursive: true });
    const db = await openEmbeddedDatabase(building);
    try {
      if (kind === 'migrated') {
        const pool = createPool({ connectionString: db.url, max: 1 });
        try {
          await runMigrations(pool);
        } finally {
          await pool.end();
        }
      }
    } finally {
      await db.close();
    }
    rmSync(join(building, 'pglite.lock'), { force: true });
    renameSync(building, dir);
    return dir;
  });
}

/**
 * A new folder for `openEmbeddedDatabase` (the `db` folder of a DATA_DIR) holding a copy of the
 * template: `embeddedDatabaseDir('migrated', join(dataDir, 'db'))`.
 */
export async function embeddedDatabaseDir(kind: EmbeddedTemplate, target?: string): Promise<string> {
  const dir = target ?? mkdtempSync(join(tmpdir(), 'cfaq-embedded-'));
  mkdirSync(dir, { recursive: true });
  cpSync(join(await ensureTemplate(kind), 'pglite'), join(dir, 'pglite'), { recursive: true });
  return dir;
}

/** A new DATA_DIR for `npm start` whose embedded database is a copy of the template. */
export async function embeddedDataDir(kind: EmbeddedTemplate, prefix = 'cfaq-embedded-'): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  await embeddedDatabaseDir(kind, join(dataDir, 'db'));
  return dataDir;
}
