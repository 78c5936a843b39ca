import { createSearchService, HNSW_EF_SEARCH } from '@cfaq/core';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';

let t: TestContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The hnsw.ef_search of the one connection a search ran on (a pool of one, so it is that connection). */
async function efSearchAfterSearch(env: Record<string, string>): Promise<string> {
  t = await createTestContext({ env });
  const pool = new pg.Pool({ connectionString: t.url, max: 1 });
  const search = createSearchService({ ...t.ctx, pool });
  try {
    await search.search({ query: 'how do i reset my password' });
    const { rows } = await pool.query<{ ef: string }>("SELECT current_setting('hnsw.ef_search') AS ef");
    return rows[0]?.ef ?? '';
  } finally {
    await search.close();
    await pool.end();
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
    t = await createTestContext({ env: { SEARCH_HNSW_EF_SEARCH: '123', SEARCH_HNSW_EF_SEARCH_POSTS: '45' } });
    const pool = new pg.Pool({ connectionString: t.url, max: 1 });
    const search = createSearchService({ ...t.ctx, pool });
    const ef = async () => (await pool.query<{ ef: string }>("SELECT current_setting('hnsw.ef_search') AS ef")).rows[0]?.ef;
    const run = (sources: ('faq' | 'community')[]) =>
      search.searchSources({ query: 'how do i reset my password', sources, modes: ['vector', 'text'] });
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
      await search.close();
      await pool.end();
    }
  });
});
