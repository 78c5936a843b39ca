import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cloneDatabase, embeddedDataDir, REPO_ROOT, type Spawned, spawnNode, TEST_ENV } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * The production build (`npm run build:dist`, what the Docker image runs): compiled JavaScript that
 * node runs alone. Type stripping is switched off, so a TypeScript file reached by mistake fails the
 * start instead of being run quietly by node's own loader.
 */
const NODE = ['--conditions=dist', '--no-experimental-strip-types', '--import', './packages/db/drizzle-resolve-hook.mjs'];
const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;

let db: { url: string; drop: () => Promise<void> };
let env: Record<string, string>;
const running: Spawned[] = [];

beforeAll(() => {
  const build = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-dist.ts'], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
}, 120_000);

beforeAll(async () => {
  db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
  env = { ...TEST_ENV, LOG_LEVEL: 'info', DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1', MIGRATE_ON_START: 'false' };
});

afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await db?.drop();
});

describe('the compiled build', () => {
  it('emits JavaScript for every entry the image and compose start, with no tsx import', () => {
    for (const entry of ['apps/api/dist/main.js', 'apps/worker/dist/main.js', 'packages/db/dist/migrate-cli.js', 'dist/start.js']) {
      expect(existsSync(join(REPO_ROOT, entry)), entry).toBe(true);
      expect(readFileSync(join(REPO_ROOT, entry), 'utf8')).not.toContain('tsx');
    }
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('RUN npm run build:dist');
    expect(dockerfile).toContain(
      'CMD ["node", "--conditions=dist", "--import", "./packages/db/drizzle-resolve-hook.mjs", "apps/api/dist/main.js"]',
    );
    expect(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8')).not.toContain('tsx');
  });

  it('the migrator runs and exits 0', async () => {
    const migrate = spawnNode([...NODE, 'packages/db/dist/migrate-cli.js'], env);
    running.push(migrate);
    const exit = await new Promise<number | null>((resolve) => migrate.child.on('exit', resolve));
    expect(exit, migrate.output()).toBe(0);
  }, 60_000);

  it('the API serves /api/health against PostgreSQL and stops within 10 s of SIGTERM', async () => {
    const api = spawnNode([...NODE, 'apps/api/dist/main.js'], env);
    running.push(api);
    const [, port] = await api.waitFor(listening, 90_000);
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(res.status).toBe(200);
    const stopped = await api.stop('SIGTERM');
    expect(stopped.code, api.output().slice(-2000)).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
  }, 120_000);

  it('the worker starts and stops within 10 s of SIGTERM', async () => {
    const worker = spawnNode([...NODE, 'apps/worker/dist/main.js'], env);
    running.push(worker);
    await worker.waitFor(/worker started/, 90_000);
    const stopped = await worker.stop('SIGTERM');
    expect(stopped.code, worker.output().slice(-2000)).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
  }, 120_000);

  it('npm run start:dist (API and worker in one process) serves on the embedded database and stops within 10 s', async () => {
    const dataDir = await embeddedDataDir('migrated', 'cfaq-dist-');
    try {
      const { DATABASE_URL: _unused, ...embeddedEnv } = env;
      const all = spawnNode([...NODE, 'dist/start.js'], { ...embeddedEnv, DATA_DIR: dataDir, MIGRATE_ON_START: 'true' });
      running.push(all);
      const [, port] = await all.waitFor(listening, 150_000);
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
      const stopped = await all.stop('SIGTERM');
      expect(stopped.code, all.output().slice(-2000)).toBe(0);
      expect(stopped.ms).toBeLessThan(10_000);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
