import { fixedClock, HOUR_MS, runEscalationCheck } from '@cfaq/core';
import { adminLogs, badges, batches, comments, communityPosts, notifications, postEscalationLogs, users } from '@cfaq/db/schema/index';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

type Who = { headers: { authorization: string }; id: string };
const START = new Date('2026-04-01T12:00:00Z');
const clock = fixedClock(START);
let t: TestApp;
let admin: Who;
let admin2: Who;
let moderator: Who;
let author: Who;
let responders: Who[];
let defaultId: string;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp({ clock, env: GENEROUS_LIMITS });
  [admin, admin2, moderator, author] = await Promise.all([t.signIn('admin'), t.signIn('admin'), t.signIn('moderator'), t.signIn('user')]);
  responders = await Promise.all(Array.from({ length: 4 }, () => t.signIn('user')));
  const [b] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
  defaultId = b?.id as string;
});
afterAll(async () => {
  await t.close();
});

async function newPost(title: string, createdAt: Date = clock.now(), values: Partial<typeof communityPosts.$inferInsert> = {}) {
  const [p] = await t.ctx.db
    .insert(communityPosts)
    .values({ batchId: defaultId, authorId: author.id, title, body: 'Please help', createdAt, updatedAt: createdAt, ...values })
    .returning({ id: communityPosts.id });
  return p?.id as string;
}
async function dnaComments(postId: string, n: number) {
  await t.ctx.db
    .insert(comments)
    .values(Array.from({ length: n }, (_, i) => ({ postId, authorId: (responders[i % 4] as Who).id, body: `not it ${i}`, dna: true })));
}
const postRow = async (id: string) =>
  (await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, id)))[0] as typeof communityPosts.$inferSelect;
const escalationNotes = (postId: string) =>
  t.ctx.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.kind, 'post_escalated'), inArray(notifications.userId, [admin.id, admin2.id])))
    .then((rows) => rows.filter((r) => r.data.postId === postId));
const post = (url: string, who: Who | null, payload?: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: who ? who.headers : {}, ...(payload !== undefined ? { payload } : {}) });
const get = (url: string, who: Who | null) => t.app.inject({ method: 'GET', url, headers: who ? who.headers : {} });

describe('auto-escalation (3 or more unanswered comments)', () => {
  it('escalates at 3, not at 2; every admin is notified once; a second tick changes nothing', async () => {
    clock.set(START);
    const three = await newPost('Three dna comments');
    const two = await newPost('Two dna comments');
    const deleted = await newPost('Deleted post', START, { deletedAt: START });
    await dnaComments(three, 3);
    await dnaComments(two, 2);
    await dnaComments(deleted, 3);
    // a plain comment and a deleted dna comment do not count
    await t.ctx.db.insert(comments).values([
      { postId: two, authorId: admin.id, body: 'plain' },
      { postId: two, authorId: admin.id, body: 'gone', dna: true, deletedAt: START },
    ]);
    // An admin whose suspension has ended is an active admin (notified); one suspended now is not.
    await t.ctx.db
      .update(users)
      .set({
        status: 'suspended',
        suspendedAt: new Date(START.getTime() - 2 * HOUR_MS),
        suspendedUntil: new Date(START.getTime() - HOUR_MS),
      })
      .where(eq(users.id, admin2.id));
    const suspendedAdmin = await t.signIn('admin');
    await t.ctx.db
      .update(users)
      .set({ status: 'suspended', suspendedAt: START, suspendedUntil: new Date(START.getTime() + 24 * HOUR_MS) })
      .where(eq(users.id, suspendedAdmin.id));
    const run = await runEscalationCheck(t.ctx);
    expect(run.escalated).toContain(three);
    expect(run.escalated).not.toContain(two);
    expect(run.escalated).not.toContain(deleted);
    expect(await postRow(three)).toMatchObject({ escalationStatus: 'escalated', escalatedAt: START });
    expect((await postRow(two)).escalationStatus).toBe('none');
    const notes = await escalationNotes(three);
    expect(notes.map((n) => n.userId).sort()).toEqual([admin.id, admin2.id].sort());
    // a moderator or user is not notified
    const others = await t.ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.kind, 'post_escalated'), inArray(notifications.userId, [moderator.id, suspendedAdmin.id])));
    expect(others).toEqual([]);

    clock.set(new Date(START.getTime() + HOUR_MS));
    expect((await runEscalationCheck(t.ctx)).escalated).not.toContain(three);
    expect(await escalationNotes(three)).toHaveLength(2);
    await dnaComments(two, 1);
    expect((await runEscalationCheck(t.ctx)).escalated).toContain(two);
  });
});

describe('time trial (unanswered for UNANSWERED_ESCALATION_DAYS, read as hours)', () => {
  it('a post exactly 16 hours old becomes pending, one 1 ms younger stays open; answered posts never', async () => {
    clock.set(START);
    const due = await newPost('Exactly sixteen hours', new Date(START.getTime() - 16 * HOUR_MS));
    const young = await newPost('Almost sixteen hours', new Date(START.getTime() - 16 * HOUR_MS + 1));
    const accepted = await newPost('Has an accepted answer', new Date(START.getTime() - 40 * HOUR_MS));
    const [c] = await t.ctx.db.insert(comments).values({ postId: accepted, authorId: admin.id, body: 'yes', isAccepted: true }).returning();
    await t.ctx.db.update(communityPosts).set({ acceptedCommentId: c?.id }).where(eq(communityPosts.id, accepted));
    const verified = await newPost('Has a verified answer', new Date(START.getTime() - 40 * HOUR_MS));
    await t.ctx.db.insert(comments).values({ postId: verified, authorId: admin.id, body: 'verified', isVerified: true });
    const aiApproved = await newPost('AI answered', new Date(START.getTime() - 40 * HOUR_MS), {
      aiAnswerStatus: 'approved',
      aiAnswer: 'x',
    });
    const closed = await newPost('Answered already', new Date(START.getTime() - 40 * HOUR_MS), { status: 'answered' });

    const run = await runEscalationCheck(t.ctx);
    expect(run.pending).toContain(due);
    for (const id of [young, accepted, verified, aiApproved, closed]) expect(run.pending).not.toContain(id);
    expect(await postRow(due)).toMatchObject({ status: 'pending', pendingAt: START });
    expect((await postRow(young)).status).toBe('open');
    // a post's time trial runs once
    await t.ctx.db.update(communityPosts).set({ status: 'open' }).where(eq(communityPosts.id, due));
    clock.set(new Date(START.getTime() + HOUR_MS));
    expect((await runEscalationCheck(t.ctx)).pending).toEqual([young]);
  });

  it('both checks run on the same tick', async () => {
    clock.set(START);
    const both = await newPost('Old and ignored', new Date(START.getTime() - 20 * HOUR_MS));
    await dnaComments(both, 3);
    const run = await runEscalationCheck(t.ctx);
    expect(run.escalated).toContain(both);
    expect(run.pending).toContain(both);
    expect(await postRow(both)).toMatchObject({ status: 'pending', escalationStatus: 'escalated' });
  });

  it("the first responder other than the author wins: badge once, notification, post back to open; the author's own comment does not count", async () => {
    clock.set(START);
    const id = await newPost('Who wins this one?', new Date(START.getTime() - 17 * HOUR_MS));
    await runEscalationCheck(t.ctx);
    expect((await postRow(id)).status).toBe('pending');
    const own = await post(`/api/community/posts/${id}/comments`, author, { body: 'Bump, anyone?' });
    expect(own.statusCode).toBe(201);
    expect((await postRow(id)).firstResponderId).toBeNull();
    const winner = responders[0] as Who;
    expect((await post(`/api/community/posts/${id}/comments`, winner, { body: 'Here is how.' })).statusCode).toBe(201);
    expect(await postRow(id)).toMatchObject({ firstResponderId: winner.id, firstRespondedAt: START, status: 'open' });
    const held = await t.ctx.db
      .select()
      .from(badges)
      .where(and(eq(badges.userId, winner.id), eq(badges.name, 'first_responder')));
    expect(held).toHaveLength(1);
    expect(held[0]?.batchId).toBe(defaultId);
    const notes = await t.ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, winner.id), eq(notifications.kind, 'first_responder_awarded')));
    expect(notes).toHaveLength(1);
    // a later comment by someone else wins nothing
    await post(`/api/community/posts/${id}/comments`, responders[1] as Who, { body: 'Also this.' });
    expect((await postRow(id)).firstResponderId).toBe(winner.id);
    // winning a second post in the same program keeps one badge (awarded once per program)
    const second = await newPost('Second trial', new Date(START.getTime() - 30 * HOUR_MS));
    await runEscalationCheck(t.ctx);
    await post(`/api/community/posts/${second}/comments`, winner, { body: 'Me again.' });
    expect((await postRow(second)).firstResponderId).toBe(winner.id);
    expect(
      await t.ctx.db
        .select()
        .from(badges)
        .where(and(eq(badges.userId, winner.id), eq(badges.name, 'first_responder'))),
    ).toHaveLength(1);
    const history = (await get(`/api/admin/escalation-history?postId=${id}&action=first_responder`, admin)).json() as {
      items: Record<string, unknown>[];
    };
    expect(history.items).toMatchObject([{ action: 'first_responder', actorId: winner.id, fromStatus: 'pending', toStatus: 'open' }]);
  });

  it('two responders racing: exactly one wins the post and the badge', async () => {
    clock.set(START);
    const racers = [responders[2] as Who, responders[3] as Who];
    const id = await newPost('Race for it', new Date(START.getTime() - 20 * HOUR_MS));
    await runEscalationCheck(t.ctx);
    const results = await Promise.all(racers.map((r, i) => post(`/api/community/posts/${id}/comments`, r, { body: `Answer ${i}` })));
    expect(results.map((r) => r.statusCode)).toEqual([201, 201]);
    const row = await postRow(id);
    expect(racers.map((r) => r.id)).toContain(row.firstResponderId);
    const won = await t.ctx.db
      .select()
      .from(badges)
      .where(
        and(
          eq(badges.name, 'first_responder'),
          inArray(
            badges.userId,
            racers.map((r) => r.id),
          ),
        ),
      );
    expect(won.map((b) => b.userId)).toEqual([row.firstResponderId]);
    const logs = await t.ctx.db
      .select()
      .from(postEscalationLogs)
      .where(and(eq(postEscalationLogs.postId, id), eq(postEscalationLogs.action, 'first_responder')));
    expect(logs).toHaveLength(1);
  });
});

describe('escalated-posts routes', () => {
  it('lists escalated posts (both spellings), resolves (both spellings), dismisses with a reason; history records it all', async () => {
    clock.set(START);
    const a = await newPost('Route A');
    const b = await newPost('Route B');
    const c = await newPost('Route C');
    for (const id of [a, b, c]) await dnaComments(id, 3);
    await runEscalationCheck(t.ctx);

    for (const url of ['/api/admin/community/escalated-posts', '/api/admin/escalated-posts']) {
      const res = await get(url, admin);
      expect(res.statusCode).toBe(200);
      const items = (res.json() as { items: Record<string, unknown>[] }).items;
      expect(items.map((i) => i.id)).toEqual(expect.arrayContaining([a, b, c]));
      expect(items.find((i) => i.id === a)).toMatchObject({
        escalationStatus: 'escalated',
        unansweredComments: 3,
        escalatedAt: START.toISOString(),
      });
    }

    clock.set(new Date(START.getTime() + HOUR_MS));
    const resolved = await post(`/api/admin/community/escalated-posts/${a}/resolve`, admin, { note: 'Answered in person' });
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json()).toMatchObject({
      escalationStatus: 'resolved',
      escalationResolvedBy: admin.id,
      escalationNote: 'Answered in person',
    });
    const resolvedB = await post(`/api/admin/escalated/${b}/resolve`, admin);
    expect(resolvedB.statusCode).toBe(200);
    expect(resolvedB.json()).toMatchObject({ escalationStatus: 'resolved', escalationNote: null });
    expectProblem(await post(`/api/admin/escalated/${a}/resolve`, admin, {}), 422, 'POST_NOT_ESCALATED');

    const noReason = expectProblem(await post(`/api/admin/community/escalated-posts/${c}/dismiss`, admin, {}), 400);
    expect(JSON.stringify(noReason.errors)).toContain('reason');
    const dismissed = await post(`/api/admin/community/escalated-posts/${c}/dismiss`, admin, { reason: 'Spam thread' });
    expect(dismissed.json()).toMatchObject({ escalationStatus: 'dismissed', escalationNote: 'Spam thread' });
    expectProblem(await post(`/api/admin/community/escalated-posts/${c}/dismiss`, admin, { reason: 'again' }), 422, 'POST_NOT_ESCALATED');
    expectProblem(await post(`/api/admin/community/escalated-posts/${MISSING}/dismiss`, admin, { reason: 'missing' }), 404);
    expectProblem(await post(`/api/admin/escalated/${MISSING}/resolve`, admin, {}), 404);
    expectProblem(await post('/api/admin/escalated/nope/resolve', admin, {}), 400);

    const [log] = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, c));
    expect(log).toMatchObject({ action: 'post.escalation_dismissed', reason: 'Spam thread' });

    const open = (await get('/api/admin/escalated-posts', admin)).json() as { items: { id: string }[] };
    expect(open.items.map((i) => i.id)).not.toContain(a);
    const closed = (await get('/api/admin/escalated-posts?status=dismissed', admin)).json() as { items: { id: string }[] };
    expect(closed.items.map((i) => i.id)).toEqual([c]);

    // a dismissed post is not escalated again
    await dnaComments(c, 2);
    expect((await runEscalationCheck(t.ctx)).escalated).not.toContain(c);

    for (const url of ['/api/admin/community/escalation-history', '/api/admin/escalation-history']) {
      const h = (await get(`${url}?postId=${c}`, admin)).json() as { items: Record<string, unknown>[] };
      expect(h.items.map((i) => i.action)).toEqual(['dismissed', 'escalated']);
      expect(h.items[0]).toMatchObject({ reason: 'Spam thread', actorId: admin.id, postTitle: 'Route C' });
    }
    const ranged = (
      await get(`/api/admin/escalation-history?action=resolved&from=${new Date(START.getTime() + 1).toISOString()}`, admin)
    ).json() as {
      items: { postId: string }[];
    };
    expect(ranged.items.map((i) => i.postId).sort()).toEqual([a, b].sort());
    expectProblem(await get('/api/admin/escalation-history?from=yesterday', admin), 400);
    // Days too: a day `from` starts at 00:00 UTC, a day `to` takes the whole day in; a day that does not exist is a 400.
    const day = START.toISOString().slice(0, 10);
    const byDay = (q: string) => get(`/api/admin/escalation-history?action=resolved&${q}`, admin);
    const within = (await byDay(`from=${day}&to=${day}`)).json() as { items: { postId: string }[] };
    expect(within.items.map((i) => i.postId).sort()).toEqual([a, b].sort());
    expect(((await byDay('to=2026-03-31')).json() as { total: number }).total).toBe(0);
    const missing = expectProblem(await byDay('from=2026-02-30'), 400);
    expect(missing.errors?.[0]?.path).toBe('query.from');
    expectProblem(await get('/api/admin/escalation-history?action=bogus', admin), 400);
  });

  it('access: admin only on every route and spelling', async () => {
    const id = await newPost('Access post');
    const routes: [string, string, Record<string, unknown> | undefined][] = [
      ['GET', '/api/admin/community/escalated-posts', undefined],
      ['GET', '/api/admin/escalated-posts', undefined],
      ['POST', `/api/admin/community/escalated-posts/${id}/resolve`, {}],
      ['POST', `/api/admin/escalated/${id}/resolve`, {}],
      ['POST', `/api/admin/community/escalated-posts/${id}/dismiss`, { reason: 'no no no' }],
      ['GET', '/api/admin/community/escalation-history', undefined],
      ['GET', '/api/admin/escalation-history', undefined],
    ];
    for (const [method, url, payload] of routes) {
      const send = (who: Who | null) =>
        t.app.inject({ method: method as 'GET', url, headers: who ? who.headers : {}, ...(payload ? { payload } : {}) });
      expectProblem(await send(null), 401);
      expectProblem(await send(moderator), 403);
      expectProblem(await send(author), 403);
    }
  });
});
