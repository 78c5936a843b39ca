import { cloneDatabase, spawnEntry, TEST_ENV } from '@cfaq/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

let db: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
});
afterAll(async () => {
  await db.drop();
});

const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;

describe('API process', () => {
  it('serves /api/health against PostgreSQL and stops cleanly on SIGTERM within 10 s', async () => {
    const p = spawnEntry('apps/api/src/main.ts', { ...TEST_ENV, LOG_LEVEL: 'info', DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1' });
    try {
      const [, port] = await p.waitFor(listening);
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(res.status).toBe(200);
      // The embedding model loads at start, not on the first search.
      await p.waitFor(/embedder ready/);
      const { code, ms } = await p.stop('SIGTERM');
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    } finally {
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
    // Starting a process (migrations, the encoder) took over 30 s on a 2-core machine under load; the stop is what is timed.
  }, 60_000);

  it('exits non-zero naming a bad setting', async () => {
    const p = spawnEntry('apps/api/src/main.ts', { ...TEST_ENV, DATABASE_URL: db.url, PORT: 'eighty' });
    const code = await new Promise<number | null>((resolve) => p.child.on('exit', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(p.output()).toContain('PORT');
  });

  it('exits at once naming the setting that used to fail later or hang: TRUST_PROXY, HOST, DATA_DIR', async () => {
    const started = [
      // Refused by Fastify when the app was built, after the migrations: "TypeError: invalid IP address".
      ['TRUST_PROXY', { DATABASE_URL: db.url, TRUST_PROXY: 'garbage!!' }],
      // getaddrinfo ENOTFOUND at listen.
      ['HOST', { DATABASE_URL: db.url, HOST: '999.1.1.1' }],
      // The embedded database's folder: Node's recursive mkdir spun forever under /proc, printing nothing.
      ...(process.platform === 'linux' ? [['DATA_DIR', { DATA_DIR: '/proc/cfaq-nope' }] as const] : []),
    ] as const;
    // Every start is awaited (and killed if it hangs) before any assertion, so none is left running.
    const results = await Promise.all(
      started.map(async ([setting, env]) => {
        const p = spawnEntry('apps/api/src/main.ts', { ...TEST_ENV, PORT: '0', ...env });
        const code = await new Promise<number | null | 'hung'>((resolve) => {
          const timer = setTimeout(() => {
            p.child.kill('SIGKILL');
            resolve('hung');
          }, 30_000);
          p.child.on('exit', (c) => {
            clearTimeout(timer);
            resolve(c);
          });
        });
        return { setting, code, output: p.output() };
      }),
    );
    for (const { setting, code, output } of results) {
      expect(code, `${setting}: ${output}`).toBe(1);
      expect(output, setting).toMatch(new RegExp(`^Invalid setting ${setting}: `, 'm'));
    }
  }, 60_000);
});

describe('npm start with DATABASE_URL', () => {
  it('runs API and worker against that PostgreSQL server: a FAQ written over HTTP is embedded by the worker', async () => {
    const p = spawnEntry('scripts/start.ts', { ...TEST_ENV, LOG_LEVEL: 'info', DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1' });
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    // The database is dropped (its sessions terminated) right after; a client still closing then
    // reports the termination, which is no failure of the test.
    pool.on('error', () => {});
    try {
      const [, port] = await p.waitFor(listening);
      expect(p.output()).toMatch(/worker started/);
      expect(p.output()).not.toMatch(/embedded database/);
      const base = `http://127.0.0.1:${port}/api`;
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const login = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: TEST_ENV.ADMIN_EMAIL, password: TEST_ENV.ADMIN_PASSWORD }),
      });
      expect(login.status).toBe(200);
      const { accessToken } = (await login.json()) as { accessToken: string };
      const created = await fetch(`${base}/faq`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ question: 'How do I reset my password?', answer: 'Use the reset link on the sign-in page.' }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      // The write enqueued the embedding job in its transaction; the worker computes it.
      // The worker loads the sentence encoder first: generous on a loaded 2-core machine.
      const deadline = Date.now() + 60_000;
      let embedded = false;
      while (!embedded && Date.now() < deadline) {
        const { rows } = await pool.query('select embedding is not null as done from faqs where id = $1', [id]);
        embedded = rows[0]?.done === true;
        if (!embedded) await new Promise((r) => setTimeout(r, 200));
      }
      expect(embedded).toBe(true);
      const { code, ms } = await p.stop('SIGTERM');
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    } finally {
      await pool.end();
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  }, 120_000);
});
