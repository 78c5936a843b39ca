import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * `npm run db:migrate` (tsx, as the npm script runs it) in `cwd`, with only PATH and HOME from this
 * environment: a DATABASE_URL of the test run must not leak in.
 */
function migrate(cwd: string, env: Record<string, string> = {}) {
  const args = ['--import', join(ROOT, 'node_modules/tsx/dist/loader.mjs'), '--import', join(ROOT, 'packages/db/drizzle-resolve-hook.mjs')];
  const run = spawnSync(process.execPath, [...args, join(ROOT, 'packages/db/src/migrate-cli.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stderr: run.stderr.trim() };
}

describe('npm run db:migrate', () => {
  it.each([
    ['notaurl', 'must be a postgres:// or postgresql:// URL'],
    ['postgres://u:secret-pass@db.example.com:5432', 'names no database'],
    ['postgres:///community_faq', 'names no host'],
  ])(
    'refuses DATABASE_URL=%s with one line naming the setting, as the app does',
    (url, problem) => {
      const run = migrate(ROOT, { DATABASE_URL: url });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^Invalid setting DATABASE_URL: ${problem}`));
      expect(run.stderr.split('\n')).toHaveLength(1);
      expect(run.stderr).not.toContain('secret-pass');
    },
    60_000,
  );

  it('reads DATABASE_URL from a .env file in the working directory, as the app does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfaq-migrate-env-'));
    try {
      writeFileSync(join(dir, '.env'), 'DATABASE_URL=postgres://u:secret-pass@db.example.com:5432\n');
      const run = migrate(dir);
      expect(run.stderr).toMatch(/^Invalid setting DATABASE_URL: names no database/);
      expect(run.status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
