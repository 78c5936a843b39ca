import { totpCodeAt } from '@cfaq/core';
import { users } from '@cfaq/db/schema/index';
import { createUser } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

// Small limits, one app for the file: each route's limiter keeps its own counters.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    env: {
      RATE_LIMIT_LOGIN_MAX: '3',
      RATE_LIMIT_REGISTER_MAX: '2',
      RATE_LIMIT_PASSWORD_MAX: '2',
      RATE_LIMIT_TWO_FACTOR_MAX: '2',
      RATE_LIMIT_IDENTITY_MAX: '10',
    },
  });
});
afterAll(async () => {
  await t.close();
});

function expect429(res: Parameters<typeof expectProblem>[0]) {
  const body = expectProblem(res, 429, 'RATE_LIMITED');
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  // The rate-limit headers are those of the limit that refused (not the per-request burst limiter's).
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  expect(res.headers['x-ratelimit-reset']).toBe(res.headers['retry-after']);
  return body;
}

describe('rate limits', () => {
  it('login: the 4th attempt from one address within the window is 429 with retry-after', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        payload: { email: 'x@example.test', password: 'wrong-pass' },
      });
      expect(res.statusCode).toBe(401);
    }
    expect429(
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        payload: { email: 'x@example.test', password: 'wrong-pass' },
      }),
    );
    // Another address has its own counter.
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '203.0.113.11',
      payload: { email: 'x@example.test', password: 'wrong-pass' },
    });
    expect(other.statusCode).toBe(401);
  });

  it('X-Forwarded-For is ignored unless TRUST_PROXY says so', async () => {
    const ip = '203.0.113.20';
    for (let i = 0; i < 3; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        headers: { 'x-forwarded-for': `198.51.100.${i}` },
        payload: { email: 'x@example.test', password: 'wrong-pass' },
      });
    }
    expect429(
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        headers: { 'x-forwarded-for': '198.51.100.99' },
        payload: { email: 'x@example.test', password: 'wrong-pass' },
      }),
    );
  });

  it('register: limited per address', async () => {
    const ip = '203.0.113.30';
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        remoteAddress: ip,
        payload: { email: `r${i}@example.test`, password: 'long-enough', name: 'R' },
      });
      expect(res.statusCode).toBe(201);
    }
    expect429(
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        remoteAddress: ip,
        payload: { email: 'r9@example.test', password: 'long-enough', name: 'R' },
      }),
    );
  });

  it('password change: limited per signed-in user, whatever the address', async () => {
    const user = await t.signIn('user');
    const attempt = (ip: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/auth/password',
        remoteAddress: ip,
        headers: user.headers,
        payload: { currentPassword: 'wrong-current', newPassword: 'whatever-new-pw' },
      });
    expect((await attempt('203.0.113.40')).statusCode).toBe(400);
    expect((await attempt('203.0.113.41')).statusCode).toBe(400);
    expect429(await attempt('203.0.113.42'));
    // Another user is not affected.
    const other = await t.signIn('user');
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/auth/password',
      remoteAddress: '203.0.113.42',
      headers: other.headers,
      payload: { currentPassword: 'wrong-current', newPassword: 'whatever-new-pw' },
    });
    expect(res.statusCode).toBe(400);
  });

  it('two-factor verify: repeated wrong codes for one account are limited across addresses', async () => {
    const admin = await t.signIn('admin');
    const challengeToken = t.app.tokens.challengeToken(admin.id, new Date());
    const attempt = (ip: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/2fa/verify', remoteAddress: ip, payload: { challengeToken, code: '000000' } });
    expect((await attempt('203.0.113.50')).statusCode).toBe(401);
    expect((await attempt('203.0.113.51')).statusCode).toBe(401);
    expect429(await attempt('203.0.113.52'));
  });

  it('two-factor verify: successful sign-ins do not count (an admin signing in all day is never locked out)', async () => {
    const admin = await t.signIn('admin');
    const setup = (await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', headers: admin.headers, payload: {} })).json();
    const enable = await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/enable',
      headers: admin.headers,
      payload: { code: await totpCodeAt(setup.secret, new Date()) },
    });
    const recovery = enable.json().recoveryCodes as string[];
    // Three sign-ins completed with a recovery code each, against a limit of 2 failures.
    for (const code of recovery.slice(0, 3)) {
      const challengeToken = t.app.tokens.challengeToken(admin.id, new Date());
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/2fa/verify',
        remoteAddress: '203.0.113.60',
        payload: { challengeToken, code },
      });
      expect(res.statusCode).toBe(200);
    }
  });
});

describe('login limiter: failed sign-ins per account and address', () => {
  // One app for the two tests below: 2 failures per account and address, 4 per address.
  let p: TestApp;
  beforeAll(async () => {
    p = await createTestApp({ env: { RATE_LIMIT_LOGIN_MAX: '2', RATE_LIMIT_LOGIN_ADDRESS_MAX: '4' } });
  });
  afterAll(async () => {
    await p.close();
  });
  const login = (ip: string, email: string, password: string) =>
    p.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email, password } });

  it('successful sign-ins do not count: an office behind one address signs in all morning', { timeout: 120_000 }, async () => {
    const users = await Promise.all([1, 2, 3].map(() => createUser(p.ctx)));
    // Six sign-ins from one address, over both ceilings, all answered.
    for (let round = 0; round < 2; round += 1) {
      for (const u of users) expect((await login('203.0.113.60', u.email, u.password)).statusCode).toBe(200);
    }
  });

  it('failures lock one account at one address, not the account elsewhere nor other accounts there; the address has a looser ceiling', {
    timeout: 120_000,
  }, async () => {
    const admin = await createUser(p.ctx, { role: 'admin' });
    const other = await createUser(p.ctx);
    const attacker = '198.51.100.70';
    expect((await login(attacker, admin.email, 'wrong-pass')).statusCode).toBe(401);
    expect((await login(attacker, admin.email.toUpperCase(), 'wrong-pass')).statusCode).toBe(401);
    expect429(await login(attacker, admin.email, 'wrong-pass'));
    // The right password from the attacker's address is refused too, while the window lasts.
    expect429(await login(attacker, admin.email, admin.password));
    // The admin at the office is not locked out by the attacker's failures.
    expect((await login('203.0.113.71', admin.email, admin.password)).statusCode).toBe(200);
    // Another account from the attacker's address: its failures count toward the address ceiling (4; the
    // two refusals above were no failures), which then refuses a third account's first sign-in.
    expect((await login(attacker, other.email, 'wrong-pass')).statusCode).toBe(401);
    expect((await login(attacker, other.email, 'wrong-pass')).statusCode).toBe(401);
    const third = await createUser(p.ctx);
    expect429(await login(attacker, third.email, third.password));
    expect((await login('203.0.113.72', other.email, 'wrong-pass')).statusCode).toBe(401);
    expect((await login('203.0.113.72', other.email, other.password)).statusCode).toBe(200);
  });

  it("the limiter's own refusals and a suspended account's right password do not count: no lasting lock", {
    timeout: 120_000,
  }, async () => {
    const u = await createUser(p.ctx);
    // Ten correct sign-ins at once: counted before the password is checked, so some are refused...
    const burst = await Promise.all(Array.from({ length: 10 }, () => login('203.0.113.90', u.email, u.password)));
    expect(burst.filter((r) => r.statusCode === 429).length).toBeGreaterThan(0);
    // ...but the refusals were no failures: the next sign-in goes through, and a wrong password is a 401.
    expect((await login('203.0.113.90', u.email, u.password)).statusCode).toBe(200);
    expect((await login('203.0.113.90', u.email, 'wrong-pass')).statusCode).toBe(401);
    const s = await createUser(p.ctx);
    await p.ctx.db.update(users).set({ status: 'suspended' }).where(eq(users.id, s.id));
    for (let i = 0; i < 4; i += 1) expect((await login('203.0.113.91', s.email, s.password)).statusCode).toBe(403);
    await p.ctx.db.update(users).set({ status: 'active' }).where(eq(users.id, s.id));
    expect((await login('203.0.113.91', s.email, s.password)).statusCode).toBe(200);
  });

  it('parallel failures cannot slip past the limit', { timeout: 120_000 }, async () => {
    const q = await createTestApp({ env: { RATE_LIMIT_LOGIN_MAX: '3' } });
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, () =>
          q.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            remoteAddress: '198.51.100.80',
            payload: { email: 'victim@example.test', password: 'wrong-pass' },
          }),
        ),
      );
      const statuses = results.map((r) => r.statusCode).sort();
      expect(statuses.filter((s) => s === 401)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    } finally {
      await q.close();
    }
  });
});

describe('trusted proxy', () => {
  it('with TRUST_PROXY the forwarded client address is the key', async () => {
    const p = await createTestApp({ env: { RATE_LIMIT_LOGIN_MAX: '1', TRUST_PROXY: '127.0.0.1' } });
    try {
      const login = (client: string) =>
        p.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': client },
          payload: { email: 'x@example.test', password: 'wrong-pass' },
        });
      expect((await login('198.51.100.1')).statusCode).toBe(401);
      expect429(await login('198.51.100.1'));
      expect((await login('198.51.100.2')).statusCode).toBe(401);
    } finally {
      await p.close();
    }
  });
});

describe('one function, one budget: its spellings and methods count together', () => {
  let c: TestApp;
  beforeAll(async () => {
    c = await createTestApp({ env: { RATE_LIMIT_FLAG_MAX: '2', RATE_LIMIT_ADMIN_WRITE_MAX: '2' } });
  });
  afterAll(async () => {
    await c.close();
  });
  const newFaq = async (admin: { headers: { authorization: string } }, question: string) => {
    const res = await c.app.inject({ method: 'POST', url: '/api/faq', headers: admin.headers, payload: { question, answer: 'Yes.' } });
    expect(res.statusCode).toBe(201);
    return (res.json() as { id: string }).id;
  };

  it('flags: POST, POST, then PATCH /faq/:id/flag is 429 (RATE_LIMIT_FLAG_MAX in all); reports keep their own budget', async () => {
    const [admin, user] = await Promise.all([c.signIn('admin'), c.signIn('user')]);
    const ids = await Promise.all(['Flag one?', 'Flag two?', 'Flag three?'].map((q) => newFaq(admin, q)));
    const flag = (method: 'POST' | 'PATCH', id: string) =>
      c.app.inject({ method, url: `/api/faq/${id}/flag`, headers: user.headers, payload: { reason: 'stale info' } });
    expect((await flag('POST', ids[0] as string)).statusCode).toBe(200);
    expect((await flag('POST', ids[1] as string)).statusCode).toBe(200);
    expect429(await flag('PATCH', ids[2] as string));
    expect429(await flag('POST', ids[2] as string));
    const report = await c.app.inject({
      method: 'POST',
      url: `/api/faq/${ids[2]}/report`,
      headers: user.headers,
      payload: { reason: 'wrong' },
    });
    expect(report.statusCode).toBe(201);
  });

  it('reputation points: /reputation/points and /reputation/award share one admin-write budget', async () => {
    const [admin, user] = await Promise.all([c.signIn('admin'), c.signIn('user')]);
    const award = (url: string) =>
      c.app.inject({ method: 'POST', url, headers: admin.headers, payload: { userId: user.id, points: 5, reason: 'helpful answers' } });
    expect((await award('/api/reputation/points')).statusCode).toBe(200);
    expect((await award('/api/reputation/award')).statusCode).toBe(200);
    expect429(await award('/api/reputation/points'));
    expect429(await award('/api/reputation/award'));
  });

  it("a user's role and deletion: the /auth/users and /admin/users spellings share one budget each", async () => {
    const [admin, a, b] = await Promise.all([c.signIn('admin'), c.signIn('user'), c.signIn('user')]);
    const role = (method: 'PATCH' | 'PUT', prefix: string, id: string, to: string) =>
      c.app.inject({ method, url: `/api/${prefix}/users/${id}/role`, headers: admin.headers, payload: { role: to } });
    expect((await role('PATCH', 'auth', a.id, 'moderator')).statusCode).toBe(200);
    expect((await role('PUT', 'admin', a.id, 'user')).statusCode).toBe(200);
    expect429(await role('PATCH', 'auth', b.id, 'moderator'));
    expect429(await role('PUT', 'admin', b.id, 'moderator'));
    const other = await c.signIn('admin');
    const del = (prefix: string, id: string) =>
      c.app.inject({ method: 'DELETE', url: `/api/${prefix}/users/${id}`, headers: other.headers });
    expect((await del('auth', a.id)).statusCode).toBe(204);
    expect((await del('admin', b.id)).statusCode).toBe(204);
    expect429(await del('auth', (await c.signIn('user')).id));
  });

  it("an escalated post's two resolve paths share one budget", async () => {
    const [admin, author] = await Promise.all([c.signIn('admin'), c.signIn('user')]);
    const ids: string[] = [];
    for (const title of ['Escalated one', 'Escalated two', 'Escalated three']) {
      const res = await c.app.inject({
        method: 'POST',
        url: '/api/community/posts',
        headers: author.headers,
        payload: { title, body: 'Help' },
      });
      ids.push((res.json() as { id: string }).id);
    }
    await c.ctx.pool.query(`UPDATE community_posts SET escalation_status = 'escalated', escalated_at = now() WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
    const resolve = (url: string) => c.app.inject({ method: 'POST', url, headers: admin.headers });
    expect((await resolve(`/api/admin/community/escalated-posts/${ids[0]}/resolve`)).statusCode).toBe(200);
    expect((await resolve(`/api/admin/escalated/${ids[1]}/resolve`)).statusCode).toBe(200);
    expect429(await resolve(`/api/admin/community/escalated-posts/${ids[2]}/resolve`));
    expect429(await resolve(`/api/admin/escalated/${ids[2]}/resolve`));
  });
});
