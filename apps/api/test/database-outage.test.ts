import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { databaseAnswers, databaseUnavailable } from '@cfaq/core';
import { createDb, createPool } from '@cfaq/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

// A database that goes away or stops answering: requests get 503 (retry later), never 500, and the
// health probe answers in seconds.
let t: TestApp;
let name: string;
let serverUrl: string;
beforeAll(async () => {
  t = await createTestApp();
  const url = new URL(t.url);
  name = url.pathname.slice(1);
  url.pathname = '/postgres';
  serverUrl = url.toString();
});
afterAll(async () => {
  await asAdmin(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`);
  await t.close();
});

async function asAdmin(statement: string) {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

describe('a database outage', () => {
  it('answers 503 DATABASE_UNAVAILABLE with retry-after while the database refuses connections, and recovers', async () => {
    await asAdmin(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
    await asAdmin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
    const res = await t.app.inject({ method: 'GET', url: '/api/faq' });
    expectProblem(res, 503, 'DATABASE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('5');
    const health = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'degraded', database: 'down' });
    await asAdmin(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`);
    expect((await t.app.inject({ method: 'GET', url: '/api/faq' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });

  it('tells a database that does not answer at all (a hung server) within the probe timeout', async () => {
    // Accepts connections and never says a word, as a server behind a partition.
    const sockets = new Set<net.Socket>();
    const hung = net.createServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const pool = createPool({ connectionString: `postgres://x@127.0.0.1:${(hung.address() as AddressInfo).port}/x`, max: 1 });
    try {
      const started = Date.now();
      expect(await databaseAnswers({ db: createDb(pool) }, 300)).toBe(false);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      for (const s of sockets) s.destroy();
      hung.close();
      await pool.end().catch(() => {});
    }
  });

  it('a backend terminated mid-transaction fails its request with 503 and leaves the process standing', async () => {
    const user = await t.signIn('user');
    const locker = new pg.Client({ connectionString: t.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE community_posts IN ACCESS EXCLUSIVE MODE');
      const writing = t.app.inject({
        method: 'POST',
        url: '/api/community/posts',
        headers: user.headers,
        payload: { title: 'Written while the server goes', body: 'Details' },
      });
      // The request's transaction waits on the lock (up to 15 s on a loaded machine); then its backend is terminated (a restart, a failover).
      let killed = 0;
      for (let i = 0; i < 500 && killed === 0; i += 1) {
        await new Promise((r) => setTimeout(r, 30));
        const { rows } = await locker.query(
          `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        killed = rows.length;
      }
      expect(killed).toBe(1);
      expectProblem(await writing, 503, 'DATABASE_UNAVAILABLE');
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
    }
    // An unhandled 'error' of the terminated client would have failed this file; the app still serves.
    await new Promise((r) => setTimeout(r, 200));
    expect((await t.app.inject({ method: 'GET', url: '/api/faq' })).statusCode).toBe(200);
  });

  it('classifies what is unavailability and what is a bug', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = createPool({ connectionString: `postgres://x@127.0.0.1:${port}/x`, max: 1 });
    const refusal = await refused.query('select 1').catch((err: unknown) => err);
    await refused.end();
    expect(databaseUnavailable(refusal)).toBe(true);
    const wrong = await t.ctx.pool.query('select * from no_such_table').catch((err: unknown) => err);
    expect(databaseUnavailable(wrong)).toBe(false);
    expect(databaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    const unresolved = createPool({ connectionString: 'postgres://x@db.nonexistent.invalid:5432/x', max: 1 });
    const notFound = await unresolved.query('select 1').catch((err: unknown) => err);
    await unresolved.end();
    expect(databaseUnavailable(notFound)).toBe(true);
    expect(databaseUnavailable(Object.assign(new Error('read-only'), { code: '25006' }))).toBe(true);
    expect(databaseUnavailable(new Error('something else'))).toBe(false);
  });
});

describe('the probes', () => {
  it('the health probe is not rate limited: it is answered after the burst budget of its address is spent', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_USER_BURST_MAX: '3' } });
    try {
      const from = { remoteAddress: '10.9.9.9' };
      const faqs = [];
      for (let i = 0; i < 4; i += 1) faqs.push((await limited.app.inject({ method: 'GET', url: '/api/faq', ...from })).statusCode);
      expect(faqs).toEqual([200, 200, 200, 429]);
      for (let i = 0; i < 3; i += 1)
        expect((await limited.app.inject({ method: 'GET', url: '/api/health', ...from })).statusCode).toBe(200);
      // Metrics stay limited (a token cannot be guessed at speed).
      expect((await limited.app.inject({ method: 'GET', url: '/api/metrics', ...from })).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
