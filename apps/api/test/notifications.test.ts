import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotificationHub, notify, teaDrop } from '@cfaq/core';
import { batches, users } from '@cfaq/db/schema/index';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

let t: TestApp;
let defaultProgram: string;
let otherProgram: string;
beforeAll(async () => {
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, NOTIFICATION_STREAM_HEARTBEAT_MS: '1000', NOTIFICATION_STREAM_POLL_MS: '60000' } });
  const rows = await t.ctx.db.select({ id: batches.id, isDefault: batches.isDefault }).from(batches);
  defaultProgram = rows.find((r) => r.isDefault)!.id;
  const [b] = await t.ctx.db.insert(batches).values({ name: 'Cohort N', slug: 'cohort-n' }).returning({ id: batches.id });
  otherProgram = b!.id;
});
afterAll(async () => {
  await t.close();
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const req = (method: 'GET' | 'PUT' | 'PATCH', url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url: `/api${url}`, headers, ...(payload ? { payload } : {}) });
const write = (userId: string, kind = 'post_answered', batchId: string | null = null, title = 'hello') =>
  t.ctx.db.transaction((tx) => notify(tx, { userId, kind, title, batchId }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Tx = Parameters<Parameters<TestApp['ctx']['db']['transaction']>[0]>[0];
/**
 * A transaction on the test's pool that stays open: `started` once it began (its rows' created_at is
 * then fixed), `run(fn)` runs a step in it, `commit()` ends it (once; again is the same promise).
 */
function openTransaction() {
  const steps: { fn: ((tx: Tx) => Promise<unknown>) | null; settle: (v: unknown) => void; fail: (err: unknown) => void }[] = [];
  let wake = () => {};
  let began = () => {};
  const started = new Promise<void>((r) => {
    began = r;
  });
  const ended = t.ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select 1`);
    began();
    for (;;) {
      while (steps.length === 0)
        await new Promise<void>((r) => {
          wake = r;
        });
      const step = steps.shift()!;
      if (!step.fn) return step.settle(undefined);
      try {
        step.settle(await step.fn(tx));
      } catch (err) {
        step.fail(err);
        throw err;
      }
    }
  });
  const push = (fn: ((tx: Tx) => Promise<unknown>) | null) =>
    new Promise<unknown>((settle, fail) => {
      steps.push({ fn, settle, fail });
      wake();
    });
  ended.catch(() => {}); // a failed step rejects its own run() and commit()
  let committing: Promise<void> | null = null;
  return {
    started,
    run: <T>(fn: (tx: Tx) => Promise<T>) => push(fn) as Promise<T>,
    commit: () => {
      committing ??= Promise.race([push(null), ended]).then(() => ended);
      return committing;
    },
  };
}

describe('notifications', () => {
  it('every route needs a signed-in user', async () => {
    for (const [m, u] of [
      ['GET', '/notifications'],
      ['PUT', `/notifications/${UNKNOWN}/read`],
      ['PUT', '/notifications/read-all'],
      ['GET', '/notifications/settings'],
      ['PUT', '/notifications/settings'],
      ['GET', '/notifications/tea'],
      ['GET', '/tea/drops'],
      ['GET', '/notifications/tea/unread-count'],
      ['PATCH', '/notifications/tea/read-all'],
      ['PATCH', `/notifications/tea/${UNKNOWN}/read`],
      ['GET', '/notifications/stream'],
    ] as const) {
      expectProblem(await req(m, u), 401);
    }
  });

  it('lists only my own, newest first, with unread count and program filter; marks mine, 404 for another', async () => {
    const me = await t.signIn('user');
    const other = await t.signIn('user');
    expect((await req('GET', '/notifications', me.headers)).json()).toEqual({ items: [], total: 0, page: 1, limit: 20, unreadCount: 0 });
    const first = await write(me.id, 'post_answered', defaultProgram, 'first');
    await write(me.id, 'post_deleted', otherProgram, 'second');
    const theirs = await write(other.id, 'post_answered', defaultProgram, 'theirs');
    const list = (await req('GET', '/notifications', me.headers)).json();
    expect(list).toMatchObject({ total: 2, unreadCount: 2 });
    expect(list.items.map((i: { title: string }) => i.title)).toEqual(['second', 'first']);
    const scoped = (await req('GET', `/notifications?batchId=${otherProgram}`, me.headers)).json();
    expect(scoped.items.map((i: { title: string }) => i.title)).toEqual(['second']);

    const read = await req('PUT', `/notifications/${first}/read`, me.headers);
    expect(read.json()).toMatchObject({ id: first, read: true });
    expectProblem(await req('PUT', `/notifications/${theirs}/read`, me.headers), 404, 'NOTIFICATION_NOT_FOUND');
    expectProblem(await req('PUT', '/notifications/not-a-uuid/read', me.headers), 400);
    expect((await req('GET', '/notifications?unread=true', me.headers)).json()).toMatchObject({ total: 1, unreadCount: 1 });
    expect((await req('PUT', '/notifications/read-all', me.headers)).json()).toEqual({ updated: 1 });
    expect((await req('GET', '/notifications', other.headers)).json()).toMatchObject({ total: 1, unreadCount: 1 });
  });

  it('settings: defaults, partial update, per-kind switch honoured when writing, unknown kind 400', async () => {
    const me = await t.signIn('user');
    const defaults = (await req('GET', '/notifications/settings', me.headers)).json();
    expect(defaults).toMatchObject({ inApp: true, email: false, teaDrops: true });
    expect(defaults.kinds.post_answered).toBe(true);
    const put = await req('PUT', '/notifications/settings', me.headers, { kinds: { post_deleted: false } });
    expect(put.json()).toMatchObject({ inApp: true, kinds: { post_deleted: false, post_answered: true } });
    expect(await write(me.id, 'post_deleted')).toBeNull();
    expect(await write(me.id, 'post_answered')).toBeTruthy();
    await req('PUT', '/notifications/settings', me.headers, { inApp: false });
    expect((await req('GET', '/notifications/settings', me.headers)).json()).toMatchObject({
      inApp: false,
      kinds: { post_deleted: false },
    });
    expect(await write(me.id, 'post_answered')).toBeNull();
    const bad = expectProblem(await req('PUT', '/notifications/settings', me.headers, { kinds: { nonsense: true } }), 400);
    expect(JSON.stringify(bad.errors)).toContain('kinds');
    // Names every object inherits are not kinds either.
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      expectProblem(await req('PUT', '/notifications/settings', me.headers, { kinds: { [name]: false } }), 400);
    }
    expectProblem(await req('PUT', '/notifications/settings', me.headers, { inApp: 'yes' }), 400);
  });

  it('tea drops: personal and program-wide, per program, read state per user', async () => {
    const me = await t.signIn('user');
    const other = await t.signIn('user');
    const drop = (userId: string | null, batchId: string, title: string) =>
      t.ctx.db.transaction((tx) => teaDrop(tx, { userId, batchId, kind: 'faq_approved', title }));
    const wide = await drop(null, defaultProgram, 'new FAQ');
    await drop(me.id, defaultProgram, 'for me');
    const theirs = await drop(other.id, defaultProgram, 'for them');
    await drop(null, otherProgram, 'elsewhere');
    for (const url of ['/notifications/tea', '/tea/drops']) {
      const list = (await req('GET', url, me.headers)).json();
      expect(list.items.map((i: { title: string }) => i.title).filter((x: string) => x !== 'elsewhere')).toContain('new FAQ');
      expect(list.items.map((i: { title: string }) => i.title)).not.toContain('for them');
      expect(list.items.map((i: { title: string }) => i.title)).not.toContain('elsewhere');
    }
    const before = (await req('GET', '/notifications/tea/unread-count', me.headers)).json();
    expect(before.batchId).toBe(defaultProgram);
    expect((await req('PATCH', `/notifications/tea/${wide}/read`, me.headers)).json()).toEqual({ id: wide, read: true });
    expect((await req('GET', '/notifications/tea/unread-count', me.headers)).json().count).toBe(before.count - 1);
    expectProblem(await req('PATCH', `/notifications/tea/${theirs}/read`, me.headers), 404, 'TEA_DROP_NOT_FOUND');
    // The other user's read state is untouched by mine.
    const otherList = (await req('GET', '/notifications/tea', other.headers)).json();
    expect(otherList.items.find((i: { id: string }) => i.id === wide).read).toBe(false);
    expect((await req('PATCH', '/notifications/tea/read-all', me.headers)).json().updated).toBe(before.count - 1);
    expect((await req('GET', '/notifications/tea/unread-count', me.headers)).json().count).toBe(0);
    expect((await req('GET', `/notifications/tea/unread-count?batchId=${otherProgram}`, me.headers)).json().count).toBe(1);
    expectProblem(await req('GET', `/notifications/tea?batchId=${UNKNOWN}`, me.headers), 404);
  });
});

describe('tea drops of an archived program', () => {
  it("stay the member's own: personal drops listed, counted and marked read; program-wide ones hidden", async () => {
    const me = await t.signIn('user');
    const [closing] = await t.ctx.db.insert(batches).values({ name: 'Tea archive', slug: 'tea-archive' }).returning();
    const batchId = closing!.id;
    await t.ctx.db.transaction((tx) => teaDrop(tx, { userId: me.id, batchId, kind: 'post_answered', title: 'mine to keep' }));
    await t.ctx.db.transaction((tx) => teaDrop(tx, { userId: null, batchId, kind: 'faq_approved', title: 'for everyone' }));
    await t.ctx.db.update(batches).set({ archivedAt: new Date() }).where(eq(batches.id, batchId));
    for (const url of ['/notifications/tea', '/tea/drops']) {
      const list = await req('GET', `${url}?batchId=${batchId}`, me.headers);
      expect(list.statusCode).toBe(200);
      expect(list.json().items.map((i: { title: string }) => i.title)).toEqual(['mine to keep']);
    }
    expect((await req('GET', `/notifications/tea/unread-count?batchId=${batchId}`, me.headers)).json().count).toBe(1);
    expect((await req('PATCH', `/notifications/tea/read-all?batchId=${batchId}`, me.headers)).json().updated).toBe(1);
    expect((await req('GET', `/notifications/tea/unread-count?batchId=${batchId}`, me.headers)).json().count).toBe(0);
  });
});

describe('a kind switched off hides the program-wide drops of that kind', () => {
  it('from the list, the unread count, read-all and the stream; other users and other kinds unaffected; on again, they show', async () => {
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    try {
      const [p] = await t.ctx.db.insert(batches).values({ name: 'Quiet tea', slug: 'quiet-tea' }).returning({ id: batches.id });
      const me = await t.signIn('user');
      const other = await t.signIn('user');
      const wide = (kind: string, title: string) =>
        t.ctx.db.transaction((tx) => teaDrop(tx, { userId: null, batchId: p!.id, kind, title }));
      const titles = async (headers: Record<string, string>) =>
        (await req('GET', `/notifications/tea?batchId=${p!.id}`, headers)).json().items.map((i: { title: string }) => i.title);
      const unread = async (headers: Record<string, string>) =>
        (await req('GET', `/notifications/tea/unread-count?batchId=${p!.id}`, headers)).json().count;
      await wide('faq_approved', 'approved before');
      expect((await req('PUT', '/notifications/settings', me.headers, { kinds: { faq_approved: false } })).statusCode).toBe(200);
      const s = readEvents(a, me.headers.authorization, 1);
      await s.atLeast(0);
      await sleep(300);
      await wide('faq_approved', 'approved after');
      const escalated = await wide('post_escalated', 'other kind');
      expect((await s.done).map((e) => e.id)).toEqual([`tea:${escalated}`]);
      await sleep(200);
      expect(s.raw()).not.toContain('approved');
      s.close();

      expect(await titles(me.headers)).toEqual(['other kind']);
      const mine = (await req('GET', `/notifications/tea?batchId=${p!.id}`, me.headers)).json();
      expect(mine).toMatchObject({ total: 1, unreadCount: 1 });
      expect(await unread(me.headers)).toBe(1);
      expect((await req('PATCH', `/notifications/tea/read-all?batchId=${p!.id}`, me.headers)).json()).toEqual({ updated: 1 });
      // Another user's settings are theirs: they see all three.
      expect(await titles(other.headers)).toEqual(['other kind', 'approved after', 'approved before']);
      expect(await unread(other.headers)).toBe(3);

      // Switched on again, the drops show (unread: read-all did not touch what was hidden).
      await req('PUT', '/notifications/settings', me.headers, { kinds: { faq_approved: true } });
      expect(await titles(me.headers)).toEqual(['other kind', 'approved after', 'approved before']);
      expect(await unread(me.headers)).toBe(2);
    } finally {
      await a.close();
    }
  });
});

/** Reads server-sent events from a listening app until `want` events arrived. */
function readEvents(app: FastifyInstance, token: string, want: number, lastEventId?: string, via: 'header' | 'query' = 'header') {
  const { port } = app.server.address() as AddressInfo;
  const events: { id: string; event: string; data: { id: string; title: string } }[] = [];
  let raw = '';
  let request!: http.ClientRequest;
  let onData = () => {};
  /** Settles once `n` events arrived (n = 0: once the stream said `: connected`, its cursor taken). */
  const atLeast = (n: number) =>
    new Promise<typeof events>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${events.length} events: ${raw}`)), 15_000);
      const prev = onData;
      const check = () => {
        if (raw.includes(': connected') && events.length >= n) {
          clearTimeout(timer);
          resolve([...events]);
        }
      };
      onData = () => {
        prev();
        check();
      };
      check();
    });
  const done = new Promise<typeof events>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${events.length} events: ${raw}`)), 15_000);
    request = http.get(
      {
        port,
        host: '127.0.0.1',
        path: `/api/notifications/stream${lastEventId && via === 'query' ? `?lastEventId=${encodeURIComponent(lastEventId)}` : ''}`,
        headers: { authorization: token, ...(lastEventId && via === 'header' ? { 'last-event-id': lastEventId } : {}) },
      },
      (res) => {
        expect(res.headers['content-type']).toContain('text/event-stream');
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          raw += chunk;
          const blocks = raw.split('\n\n').filter((b) => b.includes('event: notification') || b.includes('event: tea'));
          events.length = 0;
          for (const b of blocks) {
            const line = (k: string) =>
              b
                .split('\n')
                .find((l) => l.startsWith(`${k}: `))
                ?.slice(k.length + 2) ?? '';
            events.push({ id: line('id'), event: line('event'), data: JSON.parse(line('data')) });
          }
          onData();
          if (events.length >= want) {
            clearTimeout(timer);
            resolve([...events]);
          }
        });
      },
    );
    request.on('error', reject);
  });
  return { done, atLeast, raw: () => raw, close: () => request.destroy() };
}

describe('GET /notifications/stream', () => {
  it('pushes a notification committed on another connection within a second (LISTEN/NOTIFY, the poll is set to a minute), with heartbeats, and resumes from Last-Event-ID', async () => {
    // The stream's process only hears of the write through PostgreSQL: the write commits on the test's own pool.
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    try {
      const me = await t.signIn('user');
      // HEAD answers the stream's status and headers at once, and no stream.
      const { port } = a.server.address() as { port: number };
      const head = await fetch(`http://127.0.0.1:${port}/api/notifications/stream`, {
        method: 'HEAD',
        headers: { authorization: me.headers.authorization },
        signal: AbortSignal.timeout(3000),
      });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const old = await write(me.id, 'post_answered', null, 'before connecting');
      const s = readEvents(a, me.headers.authorization, 1);
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      const fresh = await write(me.id, 'post_answered', null, 'live');
      const [ev] = await s.done;
      expect(Date.now() - started).toBeLessThan(1000);
      expect(ev).toMatchObject({ id: fresh, event: 'notification', data: { id: fresh, title: 'live' } });
      expect(s.raw()).not.toContain('before connecting');
      await new Promise((r) => setTimeout(r, 1200));
      expect(s.raw()).toContain(': heartbeat');
      s.close();

      // Missed while away: resume after `old` delivers `fresh` and the next one, in order.
      const third = await write(me.id, 'post_answered', null, 'while away');
      const r = readEvents(a, me.headers.authorization, 2, old as string);
      expect((await r.done).map((e) => e.id)).toEqual([fresh, third]);
      r.close();
      // The same from `?lastEventId=`, for a client that cannot set the header.
      const q = readEvents(a, me.headers.authorization, 2, old as string, 'query');
      expect((await q.done).map((e) => e.id)).toEqual([fresh, third]);
      q.close();

      // Another user's notification never reaches my stream.
      const other = await t.signIn('user');
      const mine = readEvents(a, me.headers.authorization, 1);
      await new Promise((r) => setTimeout(r, 300));
      await write(other.id, 'post_answered', null, 'not yours');
      const last = await write(me.id, 'post_answered', null, 'yours');
      expect((await mine.done).map((e) => e.id)).toEqual([last]);
      mine.close();
    } finally {
      await a.close();
    }
  });

  it('pushes tea drops too (event `tea`, id `tea:<id>`): personal and program-wide, and Last-Event-ID resumes across both', async () => {
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    const drop = (userId: string | null, batchId: string, title: string) =>
      t.ctx.db.transaction((tx) => teaDrop(tx, { userId, batchId, kind: 'faq_approved', title }));
    try {
      const me = await t.signIn('user');
      const other = await t.signIn('user');
      await drop(me.id, defaultProgram, 'old tea');
      const s = readEvents(a, me.headers.authorization, 3);
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      await drop(other.id, defaultProgram, 'their tea');
      const personal = await drop(me.id, otherProgram, 'my tea');
      const wide = await drop(null, defaultProgram, 'tea for all');
      const note = await write(me.id, 'post_answered', null, 'a note');
      const events = await s.done;
      expect(Date.now() - started).toBeLessThan(1500);
      expect(events.map((e) => [e.event, e.id, e.data.title])).toEqual([
        ['tea', `tea:${personal}`, 'my tea'],
        ['tea', `tea:${wide}`, 'tea for all'],
        ['notification', note, 'a note'],
      ]);
      expect(events[0]?.data).toMatchObject({ id: personal, personal: true, read: false, batchId: otherProgram });
      expect(s.raw()).not.toContain('old tea');
      expect(s.raw()).not.toContain('their tea');
      s.close();

      // Away after the personal drop: resuming from `tea:<id>` sends the rest of both kinds, in order.
      const later = await drop(null, otherProgram, 'while away');
      const r = readEvents(a, me.headers.authorization, 3, `tea:${personal}`);
      expect((await r.done).map((e) => e.id)).toEqual([`tea:${wide}`, note, `tea:${later}`]);
      r.close();
      // From a notification id, the same sequence continues.
      const n = readEvents(a, me.headers.authorization, 1, note as string);
      expect((await n.done).map((e) => e.id)).toEqual([`tea:${later}`]);
      n.close();
      // Another user's personal drop is not a cursor for me: a fresh stream (only what comes next).
      const theirs = await drop(other.id, defaultProgram, 'theirs again');
      const f = readEvents(a, me.headers.authorization, 1, `tea:${theirs}`);
      await new Promise((r) => setTimeout(r, 300));
      const next = await drop(me.id, defaultProgram, 'next');
      expect((await f.done).map((e) => e.id)).toEqual([`tea:${next}`]);
      f.close();
      // An archived program is hidden from public reads: its program-wide drops are not streamed either.
      const [archived] = await t.ctx.db
        .insert(batches)
        .values({ name: 'Archived tea', slug: 'archived-tea', archivedAt: new Date() })
        .returning();
      await drop(null, archived!.id, 'archived tea');
      const after = await drop(null, defaultProgram, 'live tea');
      const g = readEvents(a, me.headers.authorization, 1, `tea:${next}`);
      expect((await g.done).map((e) => e.data.title)).toEqual(['live tea']);
      await new Promise((r) => setTimeout(r, 200));
      expect(g.raw()).not.toContain('archived tea');
      expect(after).toBeTruthy();
      g.close();
    } finally {
      await a.close();
    }
  });

  it('a client gone before its stream is set up (here: while the cursor is read) leaves no subscriber behind', async () => {
    // The hubs' live subscriptions, seen through subscribe (each app has its own hub).
    const subscribe = vi.spyOn(NotificationHub.prototype, 'subscribe');
    const live = () => [...new Set(subscribe.mock.contexts as NotificationHub[])].reduce((n, h) => n + h.size, 0);
    const until = async (ok: () => boolean | Promise<boolean>, what: string) => {
      for (const end = Date.now() + 5000; !(await ok()); await sleep(20)) if (Date.now() > end) throw new Error(`timed out: ${what}`);
    };
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    const lock = openTransaction();
    try {
      const me = await t.signIn('user');
      // The observable is real: a stream set up subscribes, and its close unsubscribes.
      const s = readEvents(a, me.headers.authorization, 1);
      await s.atLeast(0);
      expect(live()).toBe(1);
      s.close();
      await until(() => live() === 0, 'the closed stream unsubscribes');

      // The cursor's read waits on a lock; the client goes meanwhile, before the stream exists.
      await lock.run((tx) => tx.execute(sql`lock table notifications in access exclusive mode`));
      const { port } = a.server.address() as AddressInfo;
      const gone = http.get({
        port,
        host: '127.0.0.1',
        path: '/api/notifications/stream',
        headers: { authorization: me.headers.authorization },
      });
      gone.on('error', () => {});
      await until(async () => {
        const r = await t.ctx.db.execute<{ n: number }>(
          sql`select count(*)::int as n from pg_locks where relation = 'notifications'::regclass and not granted`,
        );
        return (r.rows[0]?.n ?? 0) > 0;
      }, 'the stream waits on the lock');
      gone.destroy();
      await sleep(200);
      await lock.commit();
      // The handler goes on once the lock is gone: it must not subscribe a stream nobody reads.
      await sleep(500);
      expect(live()).toBe(0);
    } finally {
      await lock.commit().catch(() => {});
      subscribe.mockRestore();
      await a.close();
    }
  });

  it('ends an open stream once its user is suspended, without sending what arrives after', async () => {
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    try {
      const me = await t.signIn('user');
      const { port } = a.server.address() as AddressInfo;
      let raw = '';
      const ended = new Promise<void>((resolve, reject) => {
        http
          .get(
            { port, host: '127.0.0.1', path: '/api/notifications/stream', headers: { authorization: me.headers.authorization } },
            (res) => {
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => {
                raw += chunk;
              });
              res.on('end', resolve);
            },
          )
          .on('error', reject);
      });
      await new Promise((r) => setTimeout(r, 300));
      await t.ctx.db.update(users).set({ status: 'suspended', suspendedAt: new Date() }).where(eq(users.id, me.id));
      await write(me.id, 'post_answered', null, 'after the suspension');
      await Promise.race([ended, new Promise((_, reject) => setTimeout(() => reject(new Error(`still open: ${raw}`)), 3000))]);
      expect(raw).not.toContain('after the suspension');
    } finally {
      await a.close();
    }
  });

  it('resumes after a drop withdrawn since (its FAQ deleted) or of a program archived since: what came meanwhile is not lost', async () => {
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    try {
      const me = await t.signIn('user');
      const staff = await t.signIn('admin');
      const s = readEvents(a, me.headers.authorization, 1);
      await new Promise((r) => setTimeout(r, 300));
      const made = await a.inject({
        method: 'POST',
        url: '/api/faq',
        headers: staff.headers,
        payload: { question: 'Where is the lost and found desk?', answer: 'At the entrance.' },
      });
      expect(made.statusCode).toBe(201);
      const [published] = await s.done;
      s.close();
      expect(published).toMatchObject({ event: 'tea', data: { title: 'New FAQ' } });
      expect((await a.inject({ method: 'DELETE', url: `/api/faq/${made.json().id}`, headers: staff.headers })).statusCode).toBe(204);
      const missed = await write(me.id, 'post_answered', null, 'while away');
      const r = readEvents(a, me.headers.authorization, 1, published?.id);
      expect((await r.done).map((e) => e.id)).toEqual([missed]);
      r.close();

      const [closing] = await t.ctx.db.insert(batches).values({ name: 'Closing tea', slug: 'closing-tea' }).returning();
      const wide = await t.ctx.db.transaction((tx) =>
        teaDrop(tx, { userId: null, batchId: closing!.id, kind: 'faq_approved', title: 'soon archived' }),
      );
      await t.ctx.db.update(batches).set({ archivedAt: new Date() }).where(eq(batches.id, closing!.id));
      const missedToo = await write(me.id, 'post_answered', null, 'after the archive');
      const g = readEvents(a, me.headers.authorization, 1, `tea:${wide}`);
      expect((await g.done).map((e) => e.id)).toEqual([missedToo]);
      g.close();
    } finally {
      await a.close();
    }
  });

  it('sends a row whose transaction began or wrote before a row already committed (overlapping writes), live and on resume', async () => {
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    const wideDrop = (tx: Tx, title: string) => teaDrop(tx, { userId: null, batchId: defaultProgram, kind: 'faq_approved', title });
    const open: ReturnType<typeof openTransaction>[] = [];
    const begin = () => {
      const o = openTransaction();
      open.push(o);
      return o;
    };
    try {
      const me = await t.signIn('user');
      const s = readEvents(a, me.headers.authorization, 6);
      await s.atLeast(0);
      await sleep(300);

      // A notification's transaction stays open while a later one commits: the later one waits for
      // it (sent first, it would put the open one behind the stream's cursor for good).
      const held = begin();
      const n1 = await held.run((tx) => notify(tx, { userId: me.id, kind: 'post_answered', title: 'held note' }));
      const n2 = await write(me.id, 'post_answered', null, 'committed first');
      // A stream that connects now: n2 was there before it, n1 was not.
      const s2 = readEvents(a, me.headers.authorization, 5);
      await s2.atLeast(0);
      await sleep(300);
      expect(s.raw()).not.toContain('event:');
      await held.commit();
      expect((await s.atLeast(2)).map((e) => e.id)).toEqual([n1, n2]);

      // A transaction that began before a notification that commits and is sent, then writes a
      // program-wide drop (created_at before the sent notification's): sent after it.
      const late = begin();
      await late.started;
      const n3 = await write(me.id, 'post_answered', null, 'while a drop is on its way');
      expect((await s.atLeast(3)).map((e) => e.id)).toEqual([n1, n2, n3]);
      const w1 = await late.run((tx) => wideDrop(tx, 'late drop'));
      await late.commit();
      expect((await s.atLeast(4)).map((e) => e.id)).toEqual([n1, n2, n3, `tea:${w1}`]);

      // A program-wide drop's transaction stays open while a notification commits.
      const heldDrop = begin();
      const w2 = await heldDrop.run((tx) => wideDrop(tx, 'held drop'));
      const n4 = await write(me.id, 'post_answered', null, 'after the held drop');
      await sleep(300);
      expect(s.raw()).not.toContain('after the held drop');
      await heldDrop.commit();
      const ids = (await s.done).map((e) => e.id);
      expect(ids).toEqual([n1, n2, n3, `tea:${w1}`, `tea:${w2}`, n4]);
      expect((await s2.done).map((e) => e.id)).toEqual([n1, n3, `tea:${w1}`, `tea:${w2}`, n4]);
      s.close();
      s2.close();

      // Resuming from any event sends the rest, in order, nothing twice.
      for (let i = 0; i < ids.length - 1; i++) {
        const r = readEvents(a, me.headers.authorization, ids.length - 1 - i, ids[i]);
        expect((await r.done).map((e) => e.id)).toEqual(ids.slice(i + 1));
        r.close();
      }
    } finally {
      await Promise.allSettled(open.map((o) => o.commit()));
      await a.close();
    }
  });

  it('waits only for write transactions of this database, and reads again soon after one ends (no signal needed)', async () => {
    const a = await buildApp({ ctx: t.ctx, logger: false });
    await a.listen({ port: 0, host: '127.0.0.1' });
    // A write transaction in another database of the cluster (transaction ids are cluster-wide).
    const elsewhere = new pg.Client({ connectionString: inject('dbServerUrl') });
    await elsewhere.connect();
    const open = openTransaction();
    try {
      const me = await t.signIn('user');
      const s = readEvents(a, me.headers.authorization, 2);
      await s.atLeast(0);
      await sleep(300);
      await elsewhere.query('begin');
      await elsewhere.query('select pg_current_xact_id()');
      const n1 = await write(me.id, 'post_answered', null, 'past another database');
      expect((await s.atLeast(1)).map((e) => e.id)).toEqual([n1]);

      // A transaction here that wrote nothing for me holds what commits after it took its id; its
      // end signals nothing, and the poll is a minute away: the stream's own re-read sends it.
      await open.run((tx) => tx.execute(sql`select pg_current_xact_id()`));
      const n2 = await write(me.id, 'post_answered', null, 'behind an unrelated transaction');
      await sleep(300);
      expect(s.raw()).not.toContain('behind an unrelated transaction');
      const ended = Date.now();
      await open.commit();
      expect((await s.done).map((e) => e.id)).toEqual([n1, n2]);
      expect(Date.now() - ended).toBeLessThan(5000);
      s.close();
    } finally {
      await elsewhere.end();
      await open.commit().catch(() => {});
      await a.close();
    }
  });
});
