import { CacheGeneration } from '@cfaq/core';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';

/** A pool whose generation reads are counted and answered by hand: each read returns the value current when it started. */
function fakePool() {
  let value = 0;
  const reads: { startedAt: number; finish: () => void }[] = [];
  const pool = {
    query: () =>
      new Promise((resolve) => {
        const startedAt = value;
        reads.push({ startedAt, finish: () => resolve({ rows: [{ value: String(startedAt) }] }) });
      }),
  } as unknown as pg.Pool;
  return { pool, reads, bump: () => value++ };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('search cache generation reads', () => {
  it('callers of one event-loop turn share one read, which starts after all of them', async () => {
    const { pool, reads, bump } = fakePool();
    const g = new CacheGeneration(pool);
    const a = g.current();
    bump(); // a write committed after the first call, before the read starts: every caller must see it
    const b = g.current();
    const c = g.current();
    expect(reads).toHaveLength(0);
    await turn();
    expect(reads).toHaveLength(1);
    reads[0]?.finish();
    expect(await Promise.all([a, b, c])).toEqual(['1', '1', '1']);
  });

  it('a caller arriving while a read runs gets the next read, never the running one', async () => {
    const { pool, reads, bump } = fakePool();
    const g = new CacheGeneration(pool);
    const a = g.current();
    await turn();
    expect(reads).toHaveLength(1);
    bump(); // committed while the first read runs: a later caller may have seen it
    const b = g.current();
    const c = g.current();
    await turn();
    // At most one read at a time: the second starts only after the first finished.
    expect(reads).toHaveLength(1);
    reads[0]?.finish();
    expect(await a).toBe('0');
    await turn();
    await turn();
    expect(reads).toHaveLength(2);
    reads[1]?.finish();
    expect(await Promise.all([b, c])).toEqual(['1', '1']);
  });

  it('a failed read fails its callers only; the next caller reads again', async () => {
    let calls = 0;
    const pool = {
      query: async () => {
        calls++;
        if (calls === 1) throw new Error('connection lost');
        return { rows: [{ value: '7' }] };
      },
    } as unknown as pg.Pool;
    const g = new CacheGeneration(pool);
    await expect(g.current()).rejects.toThrow('connection lost');
    expect(await g.current()).toBe('7');
    expect(calls).toBe(2);
  });
});
