import { createSearchService, EF_SEARCH_MAX, HNSW_EF_SEARCH, nearestFaqProposals, scaledEfSearch } from '@cfaq/core';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';

let t: TestContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/**
 * A pool of one connection over the test's database. It ignores its idle client's errors, as the app's
 * pools do (createPool): pool.end() resolves before the client's connection has closed, and dropping the
 * database then terminates it with a FATAL that the pool re-emits, uncaught without a listener.
 */
function poolOfOne(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  return pool;
}

/** A search service over a pool of one (so every statement runs on one connection) and that connection's ef_search. */
async function searchOnOneConnection(env: Record<string, string>, before?: (t: TestContext) => Promise<unknown>) {
  t = await createTestContext({ env });
  await before?.(t);
  const pool = poolOfOne(t.url);
  const search = createSearchService({ ...t.ctx, pool });
  return {
    pool,
    search,
    ef: async () => (await pool.query<{ ef: string }>("SELECT current_setting('hnsw.ef_search') AS ef")).rows[0]?.ef,
    run: (sources: ('faq' | 'community')[]) =>
      search.searchSources({ query: 'how do i reset my password', sources, modes: ['vector', 'text'] }),
    close: async () => {
      await search.close();
      await pool.end();
    },
  };
}

/** The hnsw.ef_search of the one connection POST /search ran on (a pool of one, so it is that connection). */
async function efSearchAfterSearch(env: Record<string, string>): Promise<string> {
  const { search, ef, close } = await searchOnOneConnection(env);
  try {
    await search.search({ query: 'how do i reset my password' });
    return (await ef()) ?? '';
  } finally {
    await close();
  }
}

describe('SEARCH_HNSW_EF_SEARCH', () => {
  it('sets the HNSW candidate list of the connection a search runs on', async () => {
    expect(await efSearchAfterSearch({ SEARCH_HNSW_EF_SEARCH: '123' })).toBe('123');
  });

  it('defaults to HNSW_EF_SEARCH', async () => {
    expect(await efSearchAfterSearch({})).toBe(String(HNSW_EF_SEARCH));
  });

  it('gives posts their own (SEARCH_HNSW_EF_SEARCH_POSTS) and moves the connection back for the other sources', async () => {
    const { ef, run, close } = await searchOnOneConnection({ SEARCH_HNSW_EF_SEARCH: '123', SEARCH_HNSW_EF_SEARCH_POSTS: '45' });
    try {
      // One statement over both (the pool is not known yet to give sessions of their own): the larger.
      await run(['faq', 'community']);
      expect(await ef()).toBe('123');
      await run(['community']);
      expect(await ef()).toBe('45');
      await run(['faq']);
      expect(await ef()).toBe('123');
      await run(['community']);
      expect(await ef()).toBe('45');
    } finally {
      await close();
    }
  });
});

describe("the FAQ graph's candidate list grows with the table", () => {
  it('keeps the setting up to 100,000 rows, then grows in proportion, at most 1000', () => {
    expect(scaledEfSearch(150, 0)).toBe(150);
    expect(scaledEfSearch(150, 100_000)).toBe(150);
    expect(scaledEfSearch(150, 300_000)).toBe(450);
    expect(scaledEfSearch(150, 5_000_000)).toBe(EF_SEARCH_MAX);
    expect(scaledEfSearch(1000, 300_000)).toBe(1000);
    expect(scaledEfSearch(150, Number.NaN)).toBe(150);
  });

  it('runs FAQ lists (and the knowledge match) at the grown list once the planner counts 300,000 FAQs; posts keep theirs', async () => {
    // The planner's estimate is what the runner reads (pg_class.reltuples, kept by ANALYZE).
    const { pool, ef, run, close } = await searchOnOneConnection({ SEARCH_HNSW_EF_SEARCH: '150', SEARCH_HNSW_EF_SEARCH_POSTS: '60' }, (c) =>
      c.ctx.pool.query("UPDATE pg_class SET reltuples = 300000 WHERE oid = 'faqs'::regclass"),
    );
    try {
      await run(['faq']);
      expect(await ef()).toBe('450');
      await run(['community']);
      expect(await ef()).toBe('60');
      const program = (await pool.query<{ id: string }>('SELECT id FROM batches WHERE is_default')).rows[0]?.id ?? null;
      await nearestFaqProposals({ pool, config: (t as TestContext).ctx.config }, program, [
        { question: 'Where is the cafeteria?', vector: Array.from({ length: 768 }, (_, i) => (i === 0 ? 1 : 0)) },
      ]);
      expect(await ef()).toBe('450');
    } finally {
      await close();
    }
  });
});
