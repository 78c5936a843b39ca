import { adminLogs, communityPosts, refreshTokens, users } from '@cfaq/db/schema/index';
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

describe('listing and reading users', () => {
  it.each(['/api/auth/users', '/api/admin/users'])('GET %s lists users for an admin, filtered and paginated', async (url) => {
    const admin = await t.signIn('admin');
    const mod = await t.signIn('moderator', { name: 'Moderator Zed' });
    const res = await t.app.inject({ method: 'GET', url: `${url}?role=moderator&q=zed&limit=5`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ page: 1, limit: 5 });
    expect(body.items.map((u: { id: string }) => u.id)).toContain(mod.id);
    expect(body.items.every((u: { role: string }) => u.role === 'moderator')).toBe(true);
    expect(JSON.stringify(body)).not.toContain('argon2');
  });

  it.each(['/api/auth/users', '/api/admin/users'])('GET %s is 403 for a user or moderator and 401 without a token', async (url) => {
    for (const role of ['user', 'moderator'] as const) {
      const who = await t.signIn(role);
      expectProblem(await t.app.inject({ method: 'GET', url, headers: who.headers }), 403, 'FORBIDDEN');
    }
    expectProblem(await t.app.inject({ method: 'GET', url }), 401);
  });

  it('GET /admin/users filters by effective status: a lapsed suspension counts as active', async () => {
    const admin = await t.signIn('admin');
    const lapsed = await t.signIn('user', { status: 'suspended' });
    const current = await t.signIn('user', { status: 'suspended' });
    await t.ctx.db
      .update(users)
      .set({ suspendedUntil: new Date(Date.now() - 1000) })
      .where(eq(users.id, lapsed.id));
    const ids = async (status: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/admin/users?status=${status}&limit=100`, headers: admin.headers })).json().items as {
        id: string;
        status: string;
      }[];
    const suspended = await ids('suspended');
    expect(suspended.map((u) => u.id)).toContain(current.id);
    expect(suspended.map((u) => u.id)).not.toContain(lapsed.id);
    const active = await ids('active');
    expect(active.find((u) => u.id === lapsed.id)?.status).toBe('active');
    expect(active.map((u) => u.id)).not.toContain(current.id);
  });

  it('GET /admin/users rejects an unknown role filter (400)', async () => {
    const admin = await t.signIn('admin');
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/api/admin/users?role=king', headers: admin.headers }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('GET /admin/users/:id shows one user with suspension details; 404 for unknown, 400 for a bad id', async () => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    const res = await t.app.inject({ method: 'GET', url: `/api/admin/users/${user.id}`, headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: user.id, status: 'active', suspendedReason: null, lastLoginAt: null });
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/admin/users/${UNKNOWN}`, headers: admin.headers }), 404, 'USER_NOT_FOUND');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/users/not-a-uuid', headers: admin.headers }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/admin/users/${user.id}`, headers: user.headers }), 403);
  });
});

describe('changing roles', () => {
  it.each([
    ['PATCH', '/api/auth/users/:id/role'],
    ['PUT', '/api/admin/users/:id/role'],
  ] as const)('%s %s takes effect on the next request and is logged', async (method, path) => {
    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/users', headers: user.headers }), 403);
    const res = await t.app.inject({ method, url: path.replace(':id', user.id), headers: admin.headers, payload: { role: 'admin' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: user.id, role: 'admin' });
    // Same token, next request: the new role applies.
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/users', headers: user.headers })).statusCode).toBe(200);
    await t.app.inject({ method, url: path.replace(':id', user.id), headers: admin.headers, payload: { role: 'user' } });
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/users', headers: user.headers }), 403);
    const logs = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, user.id));
    expect(logs.map((l) => [l.action, l.actorId, l.details])).toEqual(
      expect.arrayContaining([
        ['user.role_changed', admin.id, { from: 'user', to: 'admin' }],
        ['user.role_changed', admin.id, { from: 'admin', to: 'user' }],
      ]),
    );
  });

  it('validates the role (400), needs admin (403) and an existing user (404)', async () => {
    const admin = await t.signIn('admin');
    const mod = await t.signIn('moderator');
    const user = await t.signIn('user');
    const url = `/api/admin/users/${user.id}/role`;
    expectProblem(await t.app.inject({ method: 'PUT', url, headers: admin.headers, payload: { role: 'owner' } }), 400);
    expectProblem(await t.app.inject({ method: 'PUT', url, headers: mod.headers, payload: { role: 'admin' } }), 403);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/admin/users/${UNKNOWN}/role`, headers: admin.headers, payload: { role: 'user' } }),
      404,
    );
  });
});

describe('the last admin', () => {
  it('cannot be demoted or deleted, and two admins demoting each other at once leave one admin', async () => {
    // A database of this file's own: make exactly two admins active.
    await t.ctx.db.update(users).set({ role: 'user' }).where(eq(users.role, 'admin'));
    const a = await t.signIn('admin');
    const b = await t.signIn('admin');
    const [ra, rb] = await Promise.all([
      t.app.inject({ method: 'PUT', url: `/api/admin/users/${b.id}/role`, headers: a.headers, payload: { role: 'user' } }),
      t.app.inject({ method: 'PUT', url: `/api/admin/users/${a.id}/role`, headers: b.headers, payload: { role: 'user' } }),
    ]);
    const statuses = [ra.statusCode, rb.statusCode].sort();
    // Either one demotion wins and the other is refused (422 or, once demoted, 403), never both.
    expect(statuses[0]).toBe(200);
    expect([403, 422]).toContain(statuses[1]);
    const admins = await t.ctx.db.select({ id: users.id }).from(users).where(eq(users.role, 'admin'));
    expect(admins).toHaveLength(1);
    const last = admins[0]!.id === a.id ? a : b;
    const demote = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${last.id}/role`,
      headers: last.headers,
      payload: { role: 'user' },
    });
    expectProblem(demote, 422, 'LAST_ADMIN');
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/admin/users/${last.id}`, headers: last.headers }), 422, 'LAST_ADMIN');

    // An admin whose suspension has ended is an active admin again: the other one may now be demoted.
    const other = await t.signIn('admin');
    await t.ctx.db
      .update(users)
      .set({ status: 'suspended', suspendedAt: new Date(Date.now() - 60_000), suspendedUntil: new Date(Date.now() - 1000) })
      .where(eq(users.id, other.id));
    const demoted = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${last.id}/role`,
      headers: other.headers,
      payload: { role: 'user' },
    });
    expect(demoted.statusCode).toBe(200);
    // And while a suspension is in force, it is not: the ended one is now the last admin.
    await t.ctx.db
      .update(users)
      .set({ role: 'admin', status: 'suspended', suspendedUntil: new Date(Date.now() + 60_000) })
      .where(eq(users.id, last.id));
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/admin/users/${other.id}/role`, headers: other.headers, payload: { role: 'user' } }),
      422,
      'LAST_ADMIN',
    );
  });
});

/**
 * Deletes `userId` while another transaction holds a row lock (`lock`, a write in flight), and runs
 * `probe` (a NOWAIT lock, which throws when the delete already holds that row) while the delete waits.
 */
async function deleteWhileLocked(
  admin: { headers: Record<string, string> },
  userId: string,
  lock: [string, unknown[]],
  probe: [string, unknown[]],
) {
  const holder = await t.ctx.pool.connect();
  const prober = await t.ctx.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(...lock);
    const deleting = t.app.inject({ method: 'DELETE', url: `/api/admin/users/${userId}`, headers: admin.headers });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await prober.query('BEGIN');
    await prober.query(...probe);
    await prober.query('ROLLBACK');
    await holder.query('COMMIT');
    expect((await deleting).statusCode).toBe(204);
  } finally {
    await prober.query('ROLLBACK').catch(() => {});
    await holder.query('ROLLBACK').catch(() => {});
    prober.release();
    holder.release();
  }
}

describe('deleting users', () => {
  it.each(['/api/auth/users/:id', '/api/admin/users/:id'])(
    'DELETE %s removes the user, keeps their posts authorless, logs it',
    async (path) => {
      const admin = await t.signIn('admin');
      const user = await t.signIn('user');
      const [p] = await t.ctx.db.insert(communityPosts).values({ authorId: user.id, title: 'kept', body: 'kept' }).returning();
      await t.ctx.db
        .insert(refreshTokens)
        .values({ userId: user.id, familyId: user.id, tokenHash: `h-${user.id}`, expiresAt: new Date(Date.now() + 1e6) });
      const res = await t.app.inject({ method: 'DELETE', url: path.replace(':id', user.id), headers: admin.headers });
      expect(res.statusCode).toBe(204);
      expect(await t.ctx.db.select().from(users).where(eq(users.id, user.id))).toHaveLength(0);
      expect(await t.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, user.id))).toHaveLength(0);
      const [kept] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, p!.id));
      expect(kept?.authorId).toBeNull();
      const [log] = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, user.id));
      expect(log).toMatchObject({ action: 'user.deleted', actorId: admin.id });
      // Their token no longer works.
      expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers }), 401);
      expectProblem(await t.app.inject({ method: 'DELETE', url: path.replace(':id', user.id), headers: admin.headers }), 404);
    },
  );

  it("takes their content's locks before their row, as a vote on that content does (the other order deadlocked)", async () => {
    const admin = await t.signIn('admin');
    const author = await t.signIn('user');
    const [p] = await t.ctx.db.insert(communityPosts).values({ authorId: author.id, title: 'voted on', body: 'x' }).returning();
    // A vote in flight holds the post's row and will next need the author's row (the points' foreign key):
    // the delete waits on the post without holding the author's row, so the vote can still take it.
    await deleteWhileLocked(
      admin,
      author.id,
      ['UPDATE community_posts SET upvotes = upvotes + 1 WHERE id = $1', [p?.id]],
      ['SELECT 1 FROM users WHERE id = $1 FOR KEY SHARE NOWAIT', [author.id]],
    );
  });

  it('withdraws their AI-answer votes: the score follows, and a net of -2 left demotes the answer', async () => {
    const admin = await t.signIn('admin');
    const [minus1, plus, minus2] = await Promise.all([t.signIn('user'), t.signIn('user'), t.signIn('user')]);
    const [p] = await t.ctx.db
      .insert(communityPosts)
      .values({ title: 'with an AI answer', body: 'x', aiAnswer: 'An answer.', aiAnswerStatus: 'approved', status: 'answered' })
      .returning();
    const vote = (who: { headers: Record<string, string> }, value: number) =>
      t.app.inject({ method: 'POST', url: `/api/community/posts/${p?.id}/ai-answer/vote`, headers: who.headers, payload: { value } });
    await vote(minus1, -1);
    await vote(plus, 1);
    expect((await vote(minus2, -1)).json()).toMatchObject({ aiAnswerScore: -1, demoted: false });
    expect((await t.app.inject({ method: 'DELETE', url: `/api/admin/users/${plus.id}`, headers: admin.headers })).statusCode).toBe(204);
    const [row] = await t.ctx.db
      .select()
      .from(communityPosts)
      .where(eq(communityPosts.id, p?.id as string));
    expect(row).toMatchObject({ aiAnswerScore: -2, aiAnswerStatus: 'escalated' });
  });

  it('withdraws their AI-answer votes only once it holds the posts, as a vote does (a vote summing meanwhile kept a stale score)', async () => {
    const admin = await t.signIn('admin');
    const voter = await t.signIn('user');
    const [p] = await t.ctx.db
      .insert(communityPosts)
      .values({ title: 'answered by AI', body: 'x', aiAnswer: 'An answer.', aiAnswerStatus: 'approved', status: 'answered' })
      .returning();
    const voted = await t.app.inject({
      method: 'POST',
      url: `/api/community/posts/${p?.id}/ai-answer/vote`,
      headers: voter.headers,
      payload: { value: 1 },
    });
    expect(voted.statusCode).toBe(200);
    // The delete waits on the post before it touches the vote (it deleted the vote first, then waited).
    await deleteWhileLocked(
      admin,
      voter.id,
      ['SELECT 1 FROM community_posts WHERE id = $1 FOR UPDATE', [p?.id]],
      ['SELECT 1 FROM ai_answer_votes WHERE user_id = $1 FOR UPDATE NOWAIT', [voter.id]],
    );
    const [row] = await t.ctx.db
      .select()
      .from(communityPosts)
      .where(eq(communityPosts.id, p?.id as string));
    expect(row?.aiAnswerScore).toBe(0);
  });

  it('is 403 for a non-admin and 400 for a bad id', async () => {
    const user = await t.signIn('user');
    const admin = await t.signIn('admin');
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/admin/users/${admin.id}`, headers: user.headers }), 403);
    expectProblem(await t.app.inject({ method: 'DELETE', url: '/api/admin/users/123', headers: admin.headers }), 400);
  });
});
