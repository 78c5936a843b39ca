import { rmSync } from 'node:fs';
import { CacheGeneration } from '@cfaq/core';
import { createPool } from '@cfaq/db';
import { openEmbeddedDatabase } from '@cfaq/db/embedded';
import { createTestContext, embeddedDatabaseDir, type TestContext } from '@cfaq/testkit';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/**
 * The search cache's generation with `watch` (migration 0033: the bump notifies at commit): served
 * without a read while nothing can have moved it, read again after a notification (a write through
 * another process), after a write through its own pool, after TRUST_MS, and on every call while it
 * does not listen (a lost connection, or the embedded database).
 */
let t: TestContext;
let other: pg.Client;
const made: CacheGeneration[] = [];

const SQL = 'select value::text as value from search_cache_generation where id = 1';
/** Moves the generation row itself: no trigger, so no notification (only a read can see it). */
const bumpSilently = async (c: pg.Client | pg.Pool) =>
  (await c.query<{ value: string }>(`update search_cache_generation set value = value + 1 where id = 1 returning value::text as value`))
    .rows[0]!.value;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: () => Promise<boolean> | boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}
/** A watching generation whose listener is up and whose value is trusted. */
async function watching(pool: pg.Pool, trustMs = 60_000) {
  const g = new CacheGeneration(pool, { watch: true, trustMs });
  made.push(g);
  await until(async () => {
    await g.current();
    return g.listening;
  });
  await g.current();
  return g;
}

beforeAll(async () => {
  t = await createTestContext();
  other = new pg.Client({ connectionString: t.url });
  await other.connect();
});
afterEach(async () => {
  for (const g of made.splice(0)) await g.close();
});
afterAll(async () => {
  await other.end();
  await t.close();
});

describe('search cache generation, listening (PostgreSQL)', () => {
  it('serves what it read without reading again until a write through another process notifies it', async () => {
    const g = await watching(t.ctx.pool);
    const before = await g.current();
    // The row moved without a notification: a call that read would see it; these do not read.
    await bumpSilently(other);
    expect(await g.current()).toBe(before);
    expect(await g.current()).toBe(before);
    // A content write (another connection, as another process) notifies at commit.
    const batch = (await other.query<{ id: string }>('select id from batches where is_default')).rows[0]!.id;
    await other.query(`insert into faqs (batch_id, question, answer) values ($1, 'Listened?', 'Yes.')`, [batch]);
    const now = (await other.query<{ value: string }>(SQL)).rows[0]!.value;
    expect(Number(now)).toBeGreaterThan(Number(before) + 1);
    await until(async () => (await g.current()) === now);
  });

  it('reads again at once after a write through its own pool (before any notification could arrive)', async () => {
    const g = await watching(t.ctx.pool);
    const moved = await bumpSilently(t.ctx.pool);
    expect(await g.current()).toBe(moved);
  });

  it('trusts a value for trustMs at most', async () => {
    // 1.5 s, not less: on a loaded CI machine the write and the second read took more than 50 ms, and
    // the value was read again before the check (a failure of the test, not of the cache).
    const g = await watching(t.ctx.pool, 1500);
    const before = await g.current();
    const moved = await bumpSilently(other);
    expect(await g.current()).toBe(before);
    await sleep(1600);
    expect(await g.current()).toBe(moved);
  });

  it('reads on every call while its connection is lost, then listens again', async () => {
    const g = await watching(t.ctx.pool);
    await other.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'cfaq-search-cache' and datname = current_database()",
    );
    await until(() => !g.listening);
    const moved = await bumpSilently(other);
    expect(await g.current()).toBe(moved);
    const again = await bumpSilently(other);
    expect(await g.current()).toBe(again);
    // Listening again after its retry pause, from a later call.
    await until(async () => {
      await g.current();
      return g.listening;
    });
  });

  it('closes its connection', async () => {
    const g = await watching(t.ctx.pool);
    await g.close();
    const open = async () =>
      Number(
        (
          await other.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where application_name = 'cfaq-search-cache' and datname = current_database()",
          )
        ).rows[0]!.n,
      );
    await until(async () => (await open()) === 0);
  });
});

describe('search cache generation on the embedded database', () => {
  it('does not listen there (notifications do not cross its connections): every call reads', async () => {
    const dir = await embeddedDatabaseDir('migrated');
    const embedded = await openEmbeddedDatabase(dir);
    const pool = createPool({ connectionString: embedded.url, max: 2 });
    const g = new CacheGeneration(pool, { watch: true, trustMs: 60_000 });
    try {
      await g.current();
      await sleep(300);
      await g.current();
      expect(g.listening).toBe(false);
      const c = new pg.Client({ connectionString: embedded.url });
      await c.connect();
      const moved = await bumpSilently(c);
      await c.end();
      expect(await g.current()).toBe(moved);
    } finally {
      await g.close();
      await pool.end();
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
