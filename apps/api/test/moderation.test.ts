import { communityPosts, moderationLogs, refreshTokens, users } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
});
afterAll(async () => {
  await t.close();
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const suspend = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/moderation/suspend', headers, payload });
const unsuspend = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/moderation/unsuspend', headers, payload });

describe('POST /moderation/suspend', () => {
  it('blocks the user at once on every protected route, refuses login and revokes refresh tokens', async () => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
    const { refreshToken } = login.json();
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers })).statusCode).toBe(200);

    const res = await suspend(admin.headers, { userId: user.id, reason: 'spam' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: user.id, status: 'suspended' });

    expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers }), 403, 'ACCOUNT_SUSPENDED');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/export', headers: user.headers }), 403, 'ACCOUNT_SUSPENDED');
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } }),
      403,
      'ACCOUNT_SUSPENDED',
    );
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } }), 403, 'ACCOUNT_SUSPENDED');
    const tokens = await t.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, user.id));
    expect(tokens.every((r) => r.revokedAt)).toBe(true);
    // Public routes still answer, as anonymous.
    expect((await t.app.inject({ method: 'GET', url: '/api/health', headers: user.headers })).statusCode).toBe(200);

    const [log] = await t.ctx.db.select().from(moderationLogs).where(eq(moderationLogs.targetUserId, user.id));
    expect(log).toMatchObject({ actorId: admin.id, action: 'suspend', reason: 'spam', until: null });
  });

  it('a suspension with until ends by itself', async () => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    const until = new Date(Date.now() + 60_000).toISOString();
    expect((await suspend(admin.headers, { userId: user.id, reason: 'cool off', until })).json()).toMatchObject({ status: 'suspended' });
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers }), 403);
    await t.ctx.db
      .update(users)
      .set({ suspendedUntil: new Date(Date.now() - 1000) })
      .where(eq(users.id, user.id));
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
    expect(me.statusCode).toBe(200);
    expect(me.json().status).toBe('active');
    // Ended, it is not there to lift: unsuspend says so and logs nothing.
    expectProblem(await unsuspend(admin.headers, { userId: user.id }), 422, 'NOT_SUSPENDED');
    const lifts = await t.ctx.db.select().from(moderationLogs).where(eq(moderationLogs.targetUserId, user.id));
    expect(lifts.map((l) => l.action)).toEqual(['suspend']);
  });

  it('validates the body (400), a past until (400), self (422), unknown user (404) and needs admin (403/401)', async () => {
    const admin = await t.signIn('admin');
    const mod = await t.signIn('moderator');
    const user = await t.signIn('user');
    expectProblem(await suspend(admin.headers, { userId: user.id }), 400, 'VALIDATION_FAILED');
    expectProblem(await suspend(admin.headers, { userId: 'nope', reason: 'x' }), 400);
    const past = expectProblem(await suspend(admin.headers, { userId: user.id, reason: 'x', until: '2001-01-01T00:00:00Z' }), 400);
    expect(past.errors?.[0]?.path).toBe('body.until');
    expectProblem(await suspend(admin.headers, { userId: admin.id, reason: 'x' }), 422, 'CANNOT_SUSPEND_SELF');
    expectProblem(await suspend(admin.headers, { userId: UNKNOWN, reason: 'x' }), 404, 'USER_NOT_FOUND');
    expectProblem(await suspend(mod.headers, { userId: user.id, reason: 'x' }), 403, 'FORBIDDEN');
    expectProblem(await suspend(user.headers, { userId: user.id, reason: 'x' }), 403);
    expectProblem(await suspend({}, { userId: user.id, reason: 'x' }), 401);
  });
});

describe('POST /moderation/unsuspend', () => {
  it('lifts the suspension and logs it; 422 when not suspended; 404 unknown; 403 non-admin', async () => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    await suspend(admin.headers, { userId: user.id, reason: 'spam' });
    const res = await unsuspend(admin.headers, { userId: user.id, reason: 'appeal accepted' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'active' });
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers })).statusCode).toBe(200);
    const logs = await t.ctx.db.select().from(moderationLogs).where(eq(moderationLogs.targetUserId, user.id));
    expect(logs.map((l) => l.action).sort()).toEqual(['suspend', 'unsuspend']);
    expectProblem(await unsuspend(admin.headers, { userId: user.id }), 422, 'NOT_SUSPENDED');
    expectProblem(await unsuspend(admin.headers, { userId: UNKNOWN }), 404);
    expectProblem(await unsuspend(user.headers, { userId: user.id }), 403);
    expectProblem(await unsuspend(admin.headers, { userId: user.id, extra: 1 }), 400);
    // A reason, when given, says something (as suspend's must).
    for (const reason of ['', '   ']) expectProblem(await unsuspend(admin.headers, { userId: user.id, reason }), 400);
  });
});

describe('GET /moderation/logs', () => {
  it('lists moderation actions newest first with names, paginated; kind=admin lists admin writes', async () => {
    const admin = await t.signIn('admin', { name: 'Boss' });
    const user = await t.signIn('user', { name: 'Target Person' });
    await suspend(admin.headers, { userId: user.id, reason: 'first' });
    await unsuspend(admin.headers, { userId: user.id });
    await t.app.inject({ method: 'PUT', url: `/api/admin/users/${user.id}/role`, headers: admin.headers, payload: { role: 'moderator' } });

    const res = await t.app.inject({ method: 'GET', url: `/api/moderation/logs?targetId=${user.id}&limit=1`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ total: 2, page: 1, limit: 1 });
    expect(page.items[0]).toMatchObject({
      kind: 'moderation',
      action: 'unsuspend',
      actorName: 'Boss',
      targetName: 'Target Person',
      targetId: user.id,
    });
    const page2 = (
      await t.app.inject({ method: 'GET', url: `/api/moderation/logs?targetId=${user.id}&limit=1&page=2`, headers: admin.headers })
    ).json();
    expect(page2.items[0]).toMatchObject({ action: 'suspend', reason: 'first' });

    const adminKind = await t.app.inject({
      method: 'GET',
      url: `/api/moderation/logs?kind=admin&targetId=${user.id}`,
      headers: admin.headers,
    });
    expect(adminKind.json().items).toEqual([
      expect.objectContaining({
        kind: 'admin',
        action: 'user.role_changed',
        actorId: admin.id,
        targetName: 'Target Person',
        details: { from: 'user', to: 'moderator' },
      }),
    ]);
    // Other named targets: a program by its name, a FAQ by its question; a target without a name is null.
    const program = await t.app.inject({
      method: 'POST',
      url: '/api/batches',
      headers: admin.headers,
      payload: { name: 'Logged Program' },
    });
    const faq = await t.app.inject({
      method: 'POST',
      url: '/api/faq',
      headers: admin.headers,
      payload: { question: 'Is this FAQ named in the log?', answer: 'Yes, by its question.' },
    });
    await t.app.inject({ method: 'DELETE', url: `/api/faq/${faq.json().id}`, headers: admin.headers });
    const logged = async (targetId: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/moderation/logs?kind=admin&targetId=${targetId}`, headers: admin.headers })).json()
        .items as { targetName: string | null }[];
    expect((await logged(program.json().id)).map((i) => i.targetName)).toContain('Logged Program');
    const faqEntries = await logged(faq.json().id);
    expect(faqEntries.length).toBeGreaterThan(0);
    // A deleted FAQ has no name any more (its row is gone) or keeps its question (soft delete): never another row's.
    for (const e of faqEntries) expect([null, 'Is this FAQ named in the log?']).toContain(e.targetName);
    // A deleted program keeps its name (the entry of its deletion must say what went); a deleted post's
    // title is gone with the post.
    expect((await t.app.inject({ method: 'DELETE', url: `/api/batches/${program.json().id}`, headers: admin.headers })).statusCode).toBe(
      204,
    );
    const programEntries = await logged(program.json().id);
    expect(programEntries.map((i) => i.targetName)).toEqual(programEntries.map(() => 'Logged Program'));
    const author = await t.signIn('user');
    const [post] = await t.ctx.db
      .insert(communityPosts)
      .values({
        authorId: author.id,
        title: 'Is this post named in the log?',
        body: 'Details.',
        escalationStatus: 'escalated',
        escalatedAt: new Date(),
      })
      .returning({ id: communityPosts.id });
    const postId = post?.id as string;
    const resolve = `/api/admin/community/escalated-posts/${postId}/resolve`;
    expect((await t.app.inject({ method: 'POST', url: resolve, headers: admin.headers, payload: {} })).statusCode).toBe(200);
    expect((await logged(postId)).map((i) => i.targetName)).toEqual(['Is this post named in the log?']);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${postId}`, headers: admin.headers })).statusCode).toBe(204);
    expect((await logged(postId)).map((i) => i.targetName)).toEqual([null]);
  });

  it("logs staff editing or deleting someone else's post, with the author as target; not an author's own", async () => {
    const admin = await t.signIn('admin');
    const mod = await t.signIn('moderator');
    const author = await t.signIn('user');
    const post = async (title: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/community/posts',
          headers: author.headers,
          payload: { title, body: 'A question body long enough to post.' },
        })
      ).json().id as string;
    const edited = await post('A post a moderator edits');
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${edited}`,
      headers: mod.headers,
      payload: { title: 'A post a moderator edited' },
    });
    expect(put.statusCode).toBe(200);
    const removed = await post('A post a moderator deletes');
    expect((await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${removed}`, headers: mod.headers })).statusCode).toBe(204);
    const own = await post('A post its author deletes');
    expect((await t.app.inject({ method: 'DELETE', url: `/api/community/posts/${own}`, headers: author.headers })).statusCode).toBe(204);

    // Answers on someone else's post: mark, unmark, verify, accept, resolve (an author doing the same is not logged).
    const answered = await post('A post staff answer for');
    const answerer = await t.signIn('user');
    const comment = async (body: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/community/posts/${answered}/comments`,
          headers: answerer.headers,
          payload: { body },
        })
      ).json().id as string;
    const [c1, c2] = [await comment('First answer.'), await comment('Second answer.')];
    const act = async (method: 'PUT' | 'DELETE' | 'POST', url: string, who = mod) =>
      expect((await t.app.inject({ method, url: `/api/community/posts/${answered}${url}`, headers: who.headers })).statusCode).toBe(200);
    await act('PUT', `/comments/${c1}/dna`);
    await act('DELETE', `/comments/${c1}/dna`);
    await act('PUT', `/comments/${c2}/dna`, author);
    await act('PUT', `/comments/${c1}/verify`, admin);
    await act('PUT', `/comments/${c1}/accept`);
    const resolved = await post('A post staff resolve');
    expect((await t.app.inject({ method: 'POST', url: `/api/community/posts/${resolved}/resolve`, headers: mod.headers })).statusCode).toBe(
      200,
    );
    /** The author's moderation log entries, newest first (`query`: more filters). */
    const logsOf = async (query = '') =>
      (
        await t.app.inject({ method: 'GET', url: `/api/moderation/logs?targetId=${author.id}&limit=100${query}`, headers: admin.headers })
      ).json().items as { action: string; actorId: string; details: Record<string, unknown> }[];
    expect((await logsOf()).slice(0, 5)).toEqual([
      expect.objectContaining({ action: 'resolve_post', actorId: mod.id, details: expect.objectContaining({ postId: resolved }) }),
      expect.objectContaining({ action: 'accept_answer', actorId: mod.id, details: expect.objectContaining({ commentId: c1 }) }),
      expect.objectContaining({ action: 'verify_answer', actorId: admin.id, details: expect.objectContaining({ commentId: c1 }) }),
      expect.objectContaining({ action: 'unmark_dna', actorId: mod.id, details: expect.objectContaining({ commentId: c1 }) }),
      expect.objectContaining({ action: 'mark_dna', actorId: mod.id, details: expect.objectContaining({ commentId: c1 }) }),
    ]);

    expect(await logsOf('&action=delete_post')).toEqual([
      expect.objectContaining({
        action: 'delete_post',
        actorId: mod.id,
        targetId: author.id,
        details: expect.objectContaining({ postId: removed, title: 'A post a moderator deletes' }),
      }),
    ]);
    expect(await logsOf('&action=edit_post')).toEqual([
      expect.objectContaining({
        action: 'edit_post',
        actorId: mod.id,
        targetId: author.id,
        details: expect.objectContaining({ postId: edited, title: 'A post a moderator edits', fields: ['title'] }),
      }),
    ]);
  });

  it('keeps whom an entry was about and who acted after both accounts are deleted', async () => {
    const admin = await t.signIn('admin');
    const mod = await t.signIn('admin');
    const user = await t.signIn('user');
    expect((await suspend(mod.headers, { userId: user.id, reason: 'spam' })).statusCode).toBe(200);
    for (const gone of [user, mod]) {
      const del = await t.app.inject({ method: 'DELETE', url: `/api/auth/users/${gone.id}`, headers: admin.headers });
      expect(del.statusCode).toBe(204);
    }
    const logs = await t.app.inject({ method: 'GET', url: `/api/moderation/logs?targetId=${user.id}`, headers: admin.headers });
    expect(logs.json()).toMatchObject({ total: 1, items: [{ action: 'suspend', targetId: user.id, actorId: mod.id, targetName: null }] });
  });

  it('is admin only (403/401) and validates the query (400)', async () => {
    const mod = await t.signIn('moderator');
    const admin = await t.signIn('admin');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/moderation/logs', headers: mod.headers }), 403);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/moderation/logs' }), 401);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/moderation/logs?kind=all', headers: admin.headers }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/moderation/logs?limit=500', headers: admin.headers }), 400);
    const odd = await t.app.inject({ method: 'GET', url: '/api/moderation/logs?targetId=not-a-user', headers: admin.headers });
    expect(odd.statusCode).toBe(200);
    expect(odd.json()).toMatchObject({ items: [], total: 0 });
  });
});
