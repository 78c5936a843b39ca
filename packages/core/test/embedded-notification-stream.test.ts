import { createEmbeddedTestContext } from '@cfaq/testkit';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreContext } from '../src/context.js';
import { streamAfter, streamCursor } from '../src/notifications/stream.js';
import { notify, teaDrop } from '../src/notifications/write.js';
import { fixedClock } from '../src/runtime/clock.js';

/**
 * The notification stream's order on the embedded database (PGlite): the rows' transaction ids
 * (xid8, pg_current_xact_id) and the read's bound (pg_current_snapshot, pg_stat_activity). Overlapping
 * writes cannot happen there (a transaction runs alone), so nothing is ever held back; the overlap
 * cases are apps/api/test/notifications.test.ts's, on PostgreSQL.
 */
let ctx: CoreContext;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ctx, close } = await createEmbeddedTestContext({ clock: fixedClock('2026-03-15T12:00:00Z') }));
}, 180_000);
afterAll(async () => {
  await close?.();
});

describe('notification stream on PGlite', () => {
  it('sends what commits after connecting, in order, and resumes from any event', async () => {
    const { rows } = await ctx.db.execute<{ id: string; batch: string }>(sql`
      insert into users (email, password_hash, name) values ('stream@example.test', 'x', 'S')
      returning id, (select id from batches where is_default) as batch`);
    const { id: userId, batch } = rows[0]!;
    await ctx.db.transaction((tx) => notify(tx, { userId, kind: 'post_answered', title: 'before' }));
    const fresh = await streamCursor(ctx, userId, null);
    expect(fresh).toMatchObject({ last: null, since: { snapshot: expect.any(String), bound: expect.any(String) } });
    const n1 = await ctx.db.transaction((tx) => notify(tx, { userId, kind: 'post_answered', title: 'one' }));
    const w = await ctx.db.transaction((tx) => teaDrop(tx, { userId: null, batchId: batch, kind: 'faq_approved', title: 'all' }));
    const n2 = await ctx.db.transaction((tx) => notify(tx, { userId, kind: 'post_answered', title: 'two' }));
    const read = await streamAfter(ctx, userId, fresh);
    const ids = read.events.map((e) => e.eventId);
    expect(ids).toEqual([n1, `tea:${w}`, n2]);
    expect(read).toMatchObject({ more: false, held: false });
    expect(await streamAfter(ctx, userId, read.cursor)).toMatchObject({ events: [], held: false });
    for (let i = 0; i < ids.length; i++) {
      const from = await streamCursor(ctx, userId, ids[i]!);
      expect((await streamAfter(ctx, userId, from)).events.map((e) => e.eventId)).toEqual(ids.slice(i + 1));
    }
  });
});
