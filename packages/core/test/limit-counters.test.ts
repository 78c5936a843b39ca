import { SharedCounters } from '@cfaq/core';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestContext;
let counters: SharedCounters;
beforeAll(async () => {
  t = await createTestContext();
  counters = new SharedCounters(t.ctx.pool);
});
afterAll(async () => {
  await t.close();
});

describe('SharedCounters', () => {
  it('a refund takes back a hit of its own window only: one arriving after the window ended frees nothing in the next', async () => {
    const key = `test|refund|${Date.now()}`;
    const old = await counters.incr(key, 300);
    expect(old).toMatchObject({ current: 1, window: expect.any(String) });
    await new Promise((r) => setTimeout(r, 400));
    const fresh = await counters.incr(key, 60_000);
    await counters.incr(key, 60_000);
    expect(fresh.current).toBe(1);
    // The first hit's refund, late: the new window keeps both its hits.
    await counters.refund(key, old.window);
    expect((await counters.read(key)).current).toBe(2);
    // A refund of this window's hit takes it back.
    await counters.refund(key, fresh.window);
    expect((await counters.read(key)).current).toBe(1);
  });
});
