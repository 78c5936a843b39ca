import { SearchLogBuffer } from '@cfaq/core';
import { createTestContext, createUser, type TestContext } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Moved from apps/api/test/search.test.ts: the buffer is core and needs no HTTP.
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

describe('SearchLogBuffer', () => {
  it('keeps each search time exactly and files rows under time-ordered (UUIDv7) ids', async () => {
    const tag = `ordered ${Date.now()}`;
    const base = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    let tick = 0;
    const logs = new SearchLogBuffer({ pool: t.ctx.pool, log: t.ctx.log, clock: { now: () => new Date(base + tick++) } }, 60_000);
    for (const i of [0, 1, 2]) {
      logs.add({ query: `${tag} ${i}`, normalizedQuery: `${tag} ${i}`, resultCount: i, cacheHit: i === 1, degraded: false, latencyMs: i });
    }
    const before = Date.now();
    expect(await logs.flush()).toBe(3);
    const { rows } = await t.ctx.pool.query<{ id: string; created_at: Date; cache_hit: boolean; n: string }>(
      'SELECT id, created_at, cache_hit, normalized_query n FROM search_logs WHERE normalized_query LIKE $1 ORDER BY created_at',
      [`${tag}%`],
    );
    expect(rows.map((r) => r.n)).toEqual([0, 1, 2].map((i) => `${tag} ${i}`));
    expect(rows.map((r) => r.created_at.getTime())).toEqual([base, base + 1, base + 2]);
    expect(rows.map((r) => r.cache_hit)).toEqual([false, true, false]);
    for (const r of rows) {
      expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // The first 48 bits are the insert's Unix milliseconds.
      const ms = Number.parseInt(r.id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before - 5_000);
      expect(ms).toBeLessThanOrEqual(Date.now() + 5_000);
    }
  });

  it('gives repeated cache hits of one answer one row per flush, and keeps other searches apart', async () => {
    const tag = `combined ${Date.now()}`;
    const logs = new SearchLogBuffer({ pool: t.ctx.pool, log: t.ctx.log, clock: t.ctx.clock }, 60_000);
    const answer = [{ id: 'a' }];
    const otherAnswer = [{ id: 'b' }];
    const { id: userId } = await createUser(t.ctx);
    const base = { normalizedQuery: tag, resultCount: 2, degraded: false, latencyMs: 0 };
    const hit = (query: string, from: object, userId: string | null = null) => logs.add({ ...base, query, userId, cacheHit: true }, from);
    logs.add({ ...base, query: tag, cacheHit: false, latencyMs: 9 });
    logs.add({ ...base, query: tag, cacheHit: false, latencyMs: 9 });
    for (let i = 0; i < 5; i++) hit(tag, answer);
    hit(tag.toUpperCase(), answer);
    hit(tag, otherAnswer);
    hit(tag, answer, userId);
    hit(tag, answer, userId);
    expect(await logs.flush()).toBe(6);
    // A hit after a flush takes a new row: written rows are never counted into again.
    hit(tag, answer);
    expect(await logs.flush()).toBe(1);
    const { rows } = await t.ctx.pool.query<{ query: string; cache_hit: boolean; user_id: string | null; count: number }>(
      'SELECT query, cache_hit, user_id, count FROM search_logs WHERE normalized_query = $1',
      [tag],
    );
    const seen = rows.map((r) => `${r.query === tag ? 'same' : 'upper'} hit=${r.cache_hit} user=${r.user_id !== null} count=${r.count}`);
    expect(seen.sort()).toEqual(
      [
        'same hit=false user=false count=1',
        'same hit=false user=false count=1',
        'same hit=true user=false count=5',
        'upper hit=true user=false count=1',
        'same hit=true user=false count=1',
        'same hit=true user=true count=2',
        'same hit=true user=false count=1',
      ].sort(),
    );
  });

  it('writes a searcher deleted since the search as no user, and drops a row the database refuses rather than the batch', async () => {
    const tag = `poison ${Date.now()}`;
    const logs = new SearchLogBuffer({ pool: t.ctx.pool, log: t.ctx.log, clock: t.ctx.clock }, 60_000);
    const { id: userId } = await createUser(t.ctx);
    const base = { normalizedQuery: tag, resultCount: 1, cacheHit: false, degraded: false, latencyMs: 1 };
    logs.add({ ...base, query: `${tag} gone user`, userId });
    logs.add({ ...base, query: `${tag} no such program`, batchId: '00000000-0000-4000-8000-000000000000' });
    logs.add({ ...base, query: `${tag} plain` });
    await t.ctx.pool.query('DELETE FROM users WHERE id = $1', [userId]);
    expect(await logs.flush()).toBe(2);
    expect(logs.size).toBe(0);
    logs.add({ ...base, query: `${tag} later` });
    expect(await logs.flush()).toBe(1);
    const { rows } = await t.ctx.pool.query<{ query: string; user_id: string | null }>(
      'SELECT query, user_id FROM search_logs WHERE normalized_query = $1 ORDER BY query',
      [tag],
    );
    expect(rows).toEqual([
      { query: `${tag} gone user`, user_id: null },
      { query: `${tag} later`, user_id: null },
      { query: `${tag} plain`, user_id: null },
    ]);
  });
});
