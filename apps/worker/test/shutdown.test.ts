import { cloneDatabase, spawnEntry, TEST_ENV } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

let db: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
});
afterAll(async () => {
  await db.drop();
});

describe('worker process', () => {
  it('starts against PostgreSQL and stops cleanly on SIGTERM within 10 s', async () => {
    const p = spawnEntry('apps/worker/src/main.ts', { ...TEST_ENV, LOG_LEVEL: 'info', DATABASE_URL: db.url, MIGRATE_ON_START: 'true' });
    try {
      await p.waitFor(/worker started/);
      const { code, ms } = await p.stop('SIGTERM');
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
      expect(p.output()).toMatch(/worker stopped/);
    } finally {
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  });

  it('exits non-zero naming a bad setting', async () => {
    const p = spawnEntry('apps/worker/src/main.ts', { ...TEST_ENV, DATABASE_URL: db.url, FAQ_VERIFY_THRESHOLD: 'lots' });
    const { code } = await new Promise<{ code: number | null }>((resolve) => p.child.on('exit', (c) => resolve({ code: c })));
    expect(code).not.toBe(0);
    expect(p.output()).toContain('FAQ_VERIFY_THRESHOLD');
  });
});
