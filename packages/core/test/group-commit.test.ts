import { GroupCommit } from '@cfaq/core';
import { describe, expect, it } from 'vitest';

/** A flush the test completes by hand, recording each batch it was given. */
function manualFlush() {
  const batches: number[][] = [];
  const pending: { resolve: () => void; reject: (err: Error) => void }[] = [];
  const flush = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push(items);
      pending.push({ resolve: () => resolve(items.map((i) => `id-${i}`)), reject });
    });
  return { batches, pending, flush };
}
const turns = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('GroupCommit', () => {
  it('sends of one turn go in one flush and none settles before that flush has committed', async () => {
    const m = manualFlush();
    const g = new GroupCommit(m.flush, 100);
    const settled: string[] = [];
    const all = [1, 2, 3, 4, 5].map((n) => g.add(n).then((id) => settled.push(id)));
    await turns();
    expect(m.batches).toEqual([[1, 2, 3, 4, 5]]);
    expect(settled).toEqual([]);
    m.pending[0]?.resolve();
    await Promise.all(all);
    expect(settled).toEqual(['id-1', 'id-2', 'id-3', 'id-4', 'id-5']);
  });

  it('sends arriving while a flush is in flight wait for it and go together in the next, at most maxBatch each', async () => {
    const m = manualFlush();
    const g = new GroupCommit(m.flush, 3);
    const first = g.add(0);
    await turns();
    const later = [1, 2, 3, 4].map((n) => g.add(n));
    await turns();
    expect(m.batches).toEqual([[0]]);
    m.pending[0]?.resolve();
    expect(await first).toBe('id-0');
    await turns();
    expect(m.batches).toEqual([[0], [1, 2, 3]]);
    m.pending[1]?.resolve();
    await turns();
    expect(m.batches).toEqual([[0], [1, 2, 3], [4]]);
    m.pending[2]?.resolve();
    expect(await Promise.all(later)).toEqual(['id-1', 'id-2', 'id-3', 'id-4']);
  });

  it('a failed flush rejects every send of its batch, and the next batch is tried afresh', async () => {
    const m = manualFlush();
    const g = new GroupCommit(m.flush, 100);
    const batch = [1, 2, 3].map((n) => g.add(n));
    await turns();
    m.pending[0]?.reject(new Error('database down'));
    const results = await Promise.allSettled(batch);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.status))).toEqual([
      'database down',
      'database down',
      'database down',
    ]);
    const next = g.add(4);
    await turns();
    m.pending[1]?.resolve();
    expect(await next).toBe('id-4');
  });

  it('a flush answering the wrong number of results rejects its batch rather than misattributing them', async () => {
    const g = new GroupCommit(async (items: number[]) => items.slice(1).map(String), 100);
    const results = await Promise.allSettled([g.add(1), g.add(2)]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
  });
});
