import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnEntry } from '@cfaq/testkit';
import { describe, expect, it } from 'vitest';

// Its own file (not process.test.ts): the first embedded start is the suite's longest test, and in a
// file of its own it runs beside the other process tests instead of after them.
const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;

describe('embedded mode (the README main command)', () => {
  it('boots API and worker on PGlite with no DATABASE_URL, creates the admin, answers health, stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfaq-embedded-'));
    const env: Record<string, string> = { NODE_ENV: 'development', LOG_LEVEL: 'info', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
    const p = spawnEntry('scripts/start.ts', env);
    try {
      // A first start runs initdb inside WebAssembly and every migration: 30-40 s on a quiet 2-core
      // machine, much more when other test files compete for the cores.
      const [, port] = await p.waitFor(listening, 150_000);
      expect(p.output()).toMatch(/worker started/);
      // No ADMIN_PASSWORD: one is generated and shown once.
      expect(p.output()).toMatch(/Initial admin created: admin@localhost \/ \S{16,}/);
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ database: 'ok' });
      const { code, ms } = await p.stop('SIGTERM');
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);

      // A second start reuses the data: no new admin password, same database.
      const again = spawnEntry('scripts/start.ts', env);
      try {
        await again.waitFor(listening, 90_000);
        expect(again.output()).not.toMatch(/Initial admin created/);
        expect((await again.stop('SIGTERM')).code).toBe(0);
      } finally {
        if (again.child.exitCode === null) again.child.kill('SIGKILL');
      }
    } finally {
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 280_000);
});
