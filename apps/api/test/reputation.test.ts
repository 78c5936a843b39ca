import { adminLogs, batches, notifications } from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

let t: TestApp;
let otherProgram: string;
beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
  const [b] = await t.ctx.db.insert(batches).values({ name: 'Cohort B', slug: 'cohort-b-rep' }).returning({ id: batches.id });
  otherProgram = b!.id;
});
afterAll(async () => {
  await t.close();
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `/api${url}`, headers });
const post = (url: string, headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: `/api${url}`, headers, payload });

describe('reputation routes', () => {
  it('access: leaderboard public, me and history signed in, the rest admin', async () => {
    const user = await t.signIn('user');
    const mod = await t.signIn('moderator');
    expect((await get('/reputation/leaderboard')).statusCode).toBe(200);
    expectProblem(await get('/reputation/me'), 401);
    expectProblem(await get('/reputation/history'), 401);
    expectProblem(await get(`/reputation/user/${user.id}`, user.headers), 403);
    expectProblem(await get(`/reputation/user/${user.id}`, mod.headers), 403);
    for (const url of ['/reputation/points', '/reputation/award']) {
      expectProblem(await post(url, user.headers, { userId: user.id, points: 5, reason: 'x' }), 403);
    }
    for (const url of ['/reputation/badge/issue', '/reputation/badge', '/reputation/badge/revoke', '/reputation/revoke-badge']) {
      expectProblem(await post(url, mod.headers, { userId: user.id, name: 'helper', reason: 'x' }), 403);
    }
  });

  it('empty answers for a new user', async () => {
    const user = await t.signIn('user');
    const me = await get('/reputation/me', user.headers);
    expect(me.json()).toMatchObject({ userId: user.id, points: 0, weekPoints: 0, monthPoints: 0, rank: null, badges: [] });
    expect((await get('/reputation/history', user.headers)).json()).toEqual({ items: [], total: 0, page: 1, limit: 20 });
    const board = await get(`/reputation/leaderboard?batchId=${otherProgram}&period=week`);
    expect(board.json()).toMatchObject({ items: [], total: 0, period: 'week' });
  });

  it('admin awards points and issues and revokes badges, per program, audit-logged', async () => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user', { name: 'Ada' });
    const award = await post('/reputation/award', admin.headers, {
      userId: user.id,
      points: 40,
      reason: 'great help',
      batchId: otherProgram,
    });
    expect(award.statusCode).toBe(200);
    expect(award.json()).toMatchObject({ batchId: otherProgram, points: 40, weekPoints: 40, rank: 1, totalReputation: 40 });
    await post('/reputation/points', admin.headers, { userId: user.id, points: -5, reason: 'correction', batchId: otherProgram });

    // Scoped: the default program knows nothing of it.
    expect((await get('/reputation/me', user.headers)).json()).toMatchObject({ points: 0, totalReputation: 35 });
    const me = (await get(`/reputation/me?batchId=${otherProgram}`, user.headers)).json();
    expect(me).toMatchObject({ points: 35, rank: 1 });
    const history = (await get(`/reputation/history?batchId=${otherProgram}&limit=1`, user.headers)).json();
    expect(history).toMatchObject({ total: 2, limit: 1 });
    expect(history.items[0]).toMatchObject({ points: -5, reason: 'correction', sourceType: 'admin' });

    const board = (await get(`/reputation/leaderboard?batchId=${otherProgram}&period=month`)).json();
    expect(board.items).toEqual([{ rank: 1, userId: user.id, name: 'Ada', avatarUrl: null, points: 35 }]);
    expect((await get('/reputation/leaderboard')).json().items.some((i: { userId: string }) => i.userId === user.id)).toBe(false);

    const issued = await post('/reputation/badge/issue', admin.headers, {
      userId: user.id,
      name: 'mentor',
      reason: 'ran a study group',
      batchId: otherProgram,
    });
    expect(issued.statusCode).toBe(201);
    expect(issued.json().badges).toMatchObject([{ name: 'mentor', reason: 'ran a study group', awardedBy: admin.id }]);
    expectProblem(
      await post('/reputation/badge', admin.headers, { userId: user.id, name: 'mentor', reason: 'again', batchId: otherProgram }),
      409,
      'BADGE_ALREADY_HELD',
    );
    // The same badge in the default program is a different badge.
    expect((await post('/reputation/badge', admin.headers, { userId: user.id, name: 'mentor', reason: 'here too' })).statusCode).toBe(201);

    const revoked = await post('/reputation/revoke-badge', admin.headers, {
      userId: user.id,
      name: 'mentor',
      reason: 'mistake',
      batchId: otherProgram,
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().badges).toEqual([]);
    expectProblem(
      await post('/reputation/badge/revoke', admin.headers, { userId: user.id, name: 'mentor', reason: 'mistake', batchId: otherProgram }),
      404,
      'BADGE_NOT_HELD',
    );

    const byAdmin = await get(`/reputation/user/${user.id}?batchId=${otherProgram}`, admin.headers);
    expect(byAdmin.json()).toMatchObject({ userId: user.id, points: 35, badges: [] });

    const logs = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, user.id));
    expect(logs.map((l) => l.action).sort()).toEqual([
      'reputation.badge_issued',
      'reputation.badge_issued',
      'reputation.badge_revoked',
      'reputation.points_awarded',
      'reputation.points_awarded',
    ]);
    expect(logs.find((l) => l.action === 'reputation.badge_revoked')?.reason).toBe('mistake');
    // One spelling of the user target across actions (role changes write 'User' too).
    expect(new Set(logs.map((l) => l.targetType))).toEqual(new Set(['User']));
    const kinds = await t.ctx.db
      .select({ kind: notifications.kind })
      .from(notifications)
      .where(and(eq(notifications.userId, user.id)));
    expect(kinds.map((k) => k.kind).sort()).toEqual([
      'badge_awarded',
      'badge_awarded',
      'badge_revoked',
      'points_awarded',
      'points_awarded',
    ]);
  });

  it('races through the routes: concurrent badge issues write one badge, concurrent awards all count, totals equal the log', async () => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    const issues = await Promise.all(
      Array.from({ length: 8 }, () =>
        post('/reputation/badge/issue', admin.headers, { userId: user.id, name: 'racer', reason: 'fast', batchId: otherProgram }),
      ),
    );
    expect(issues.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const revokes = await Promise.all(
      Array.from({ length: 4 }, () =>
        post('/reputation/revoke-badge', admin.headers, { userId: user.id, name: 'racer', reason: 'undo', batchId: otherProgram }),
      ),
    );
    expect(revokes.map((r) => r.statusCode).sort()).toEqual([200, 404, 404, 404]);
    const awards = await Promise.all(
      [7, 7, -3, 12, 5, 5, -1, 9].map((points) =>
        post('/reputation/points', admin.headers, { userId: user.id, points, reason: 'race', batchId: otherProgram }),
      ),
    );
    expect(awards.every((r) => r.statusCode === 200)).toBe(true);
    const me = (await get(`/reputation/me?batchId=${otherProgram}`, user.headers)).json();
    expect(me).toMatchObject({ points: 41, weekPoints: 41, monthPoints: 41, totalReputation: 41, badges: [] });
    const history = (await get(`/reputation/history?batchId=${otherProgram}&limit=100`, user.headers)).json();
    expect(history.items.reduce((a: number, i: { points: number }) => a + i.points, 0)).toBe(41);
    const board = (await get(`/reputation/leaderboard?batchId=${otherProgram}&limit=100`)).json();
    expect(board.items.find((i: { userId: string }) => i.userId === user.id)).toMatchObject({ points: 41, rank: me.rank });
  });

  it('validation names the field; unknown users and programs are 404', async () => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    const zero = expectProblem(await post('/reputation/points', admin.headers, { userId: user.id, points: 0, reason: 'x' }), 400);
    expect(zero.errors).toEqual([{ path: 'body.points', message: 'must not be 0' }]);
    // Listed with the body's other errors, once each.
    const two = expectProblem(await post('/reputation/points', admin.headers, { userId: user.id, points: 0, reason: ' ' }), 400);
    expect(two.errors?.map((e) => e.path).sort()).toEqual(['body.points', 'body.reason']);
    // Both spellings; nothing is written.
    expectProblem(await post('/reputation/award', admin.headers, { userId: user.id, points: 0, reason: 'x' }), 400, 'VALIDATION_FAILED');
    expect((await get('/reputation/me', user.headers)).json()).toMatchObject({ points: 0 });
    const noReason = expectProblem(await post('/reputation/badge/issue', admin.headers, { userId: user.id, name: 'x1' }), 400);
    expect(JSON.stringify(noReason.errors)).toContain('reason');
    expectProblem(await post('/reputation/badge/issue', admin.headers, { userId: user.id, name: 'Bad Name', reason: 'x' }), 400);
    expectProblem(await get('/reputation/leaderboard?period=year'), 400);
    expectProblem(await get('/reputation/leaderboard?limit=101'), 400);
    expectProblem(await get(`/reputation/leaderboard?batchId=${UNKNOWN}`), 404, 'PROGRAM_NOT_FOUND');
    expectProblem(await get(`/reputation/user/${UNKNOWN}`, admin.headers), 404, 'USER_NOT_FOUND');
    expectProblem(await get('/reputation/user/not-a-uuid', admin.headers), 400);
    expectProblem(await post('/reputation/award', admin.headers, { userId: UNKNOWN, points: 3, reason: 'x' }), 404, 'USER_NOT_FOUND');
  });
});

describe('reputation from community events', () => {
  const me = async (who: { headers: Record<string, string> }) =>
    (await get('/reputation/me', who.headers)).json() as { points: number; badges: { name: string }[] };
  const newPost = async (who: { headers: Record<string, string> }, title: string) =>
    (await post('/community/posts', who.headers, { title, body: 'Details of the question' })).json() as { id: string };

  it('a withdrawn downvote that lifts its author to 100 points awards rising_star', async () => {
    const admin = await t.signIn('admin');
    const author = await t.signIn('user');
    const voter = await t.signIn('user');
    const p = await newPost(author, 'A question that was downvoted');
    expect((await post(`/community/posts/${p.id}/downvote`, voter.headers, {})).statusCode).toBe(200);
    await post('/reputation/points', admin.headers, { userId: author.id, points: 100, reason: 'welcome' });
    expect((await me(author)).points).toBe(98);
    expect((await post(`/community/posts/${p.id}/downvote`, voter.headers, {})).json()).toMatchObject({ myVote: null });
    const after = await me(author);
    expect(after.points).toBe(100);
    expect(after.badges.map((b) => b.name)).toContain('rising_star');
  });

  it('staff earn nothing for verifying their own comment or converting their own post', async () => {
    const moderator = await t.signIn('moderator');
    const asker = await t.signIn('user');
    const p = await newPost(asker, 'How do I reset my badge?');
    const c = (await post(`/community/posts/${p.id}/comments`, moderator.headers, { body: 'Ask at the front desk.' })).json() as {
      id: string;
    };
    const verified = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${p.id}/comments/${c.id}/verify`,
      headers: moderator.headers,
    });
    expect(verified.statusCode).toBe(200);
    const own = await newPost(moderator, 'How do staff book rooms?');
    expect((await post(`/community/posts/${own.id}/convert`, moderator.headers, { answer: 'Through the staff portal.' })).statusCode).toBe(
      201,
    );
    expect(await me(moderator)).toMatchObject({ points: 0, badges: [] });
  });
});
