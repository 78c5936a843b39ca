import { randomUUID } from 'node:crypto';
import { Code, hashPassword, sha256Hex, startSession, type TokenSigner, unauthorized } from '@cfaq/core';
import {
  badges,
  comments,
  communityPosts,
  moderationLogs,
  notifications,
  postVotes,
  refreshTokens,
  reputationLogs,
  searchLogs,
  users,
} from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp, whileHeld } from './helpers.js';
import { bearer, craftJwt } from './tokens.js';

let t: TestApp;
beforeAll(async () => {
  // The grace window is an operator's option (off by default); most tests here run with it on.
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, REFRESH_REUSE_GRACE_SECONDS: '30' } });
});
afterAll(async () => {
  await t.close();
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/api${url}`, payload, headers });

let seq = 0;
async function registerUser(overrides: Partial<{ email: string; password: string; name: string }> = {}) {
  seq += 1;
  const body = {
    email: `person${seq}-${randomUUID().slice(0, 6)}@example.test`,
    password: 'a-good-password',
    name: `Person ${seq}`,
    ...overrides,
  };
  const res = await post('/auth/register', body);
  expect(res.statusCode).toBe(201);
  return { ...body, ...(res.json() as { accessToken: string; refreshToken: string; expiresIn: number; user: { id: string } }) };
}

/** PUT /auth/password from `u`'s password to 'a-brand-new-password'. */
const changePassword = (u: { accessToken: string; password: string }) =>
  t.app.inject({
    method: 'PUT',
    url: '/api/auth/password',
    headers: bearer(u.accessToken),
    payload: { currentPassword: u.password, newPassword: 'a-brand-new-password' },
  });

/** Moves a token's rotation past the refresh grace window (REFRESH_REUSE_GRACE_SECONDS, 30 s). */
async function ageRotation(token: string) {
  await t.ctx.db
    .update(refreshTokens)
    .set({ rotatedAt: new Date(Date.now() - 60_000) })
    .where(eq(refreshTokens.tokenHash, sha256Hex(token)));
}

const SECRET_KEYS = ['passwordHash', 'password', 'totpSecret', 'totpPendingSecret', 'confAccessToken', 'confRefreshToken', 'tokenHash'];

describe('POST /auth/register', () => {
  it('creates a user account with a session and a normalised email', async () => {
    const res = await post('/auth/register', { email: '  Mixed.Case@Example.TEST ', password: 'long-enough', name: 'Mixed' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 900 });
    expect(body.user).toMatchObject({
      email: 'mixed.case@example.test',
      name: 'Mixed',
      role: 'user',
      status: 'active',
      reputation: 0,
      twoFactorEnabled: false,
    });
    expect(Object.keys(body.user).sort()).toEqual(
      [
        'avatarUrl',
        'bio',
        'confConnected',
        'confConnectedAt',
        'confUserId',
        'createdAt',
        'email',
        'id',
        'name',
        'reputation',
        'role',
        'status',
        'twoFactorEnabled',
        'updatedAt',
      ].sort(),
    );
    const [row] = await t.ctx.db.select().from(users).where(eq(users.id, body.user.id));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    const [token] = await t.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, body.user.id));
    expect(token?.tokenHash).toBe(sha256Hex(body.refreshToken));
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(body.accessToken) });
    expect(me.json().id).toBe(body.user.id);
  });

  it('refuses a duplicate email, whatever its case (409)', async () => {
    const first = await registerUser();
    const res = await post('/auth/register', { email: first.email.toUpperCase(), password: 'another-password', name: 'Dup' });
    expectProblem(res, 409, 'EMAIL_TAKEN');
  });

  it('validates email, password length and unknown fields (400)', async () => {
    expectProblem(await post('/auth/register', { email: 'not-an-email', password: 'long-enough', name: 'x' }), 400, 'VALIDATION_FAILED');
    const short = expectProblem(await post('/auth/register', { email: 'a@b.test', password: 'short', name: 'x' }), 400);
    expect(short.errors?.[0]?.path).toBe('body.password');
    expectProblem(await post('/auth/register', { email: 'a@b.test', password: 'x'.repeat(129), name: 'x' }), 400);
    // Characters, not UTF-16 units: 128 emoji are 128 characters.
    expect((await post('/auth/register', { email: 'emoji@b.test', password: '😀'.repeat(128), name: 'x' })).statusCode).toBe(201);
    expectProblem(await post('/auth/register', { email: 'emoji2@b.test', password: '😀'.repeat(129), name: 'x' }), 400);
    const extra = expectProblem(
      await post('/auth/register', { email: 'a@b.test', password: 'long-enough', name: 'x', role: 'admin' }),
      400,
    );
    expect(extra.errors?.[0]?.path).toBe('body.role');
  });
});

describe('POST /auth/login', () => {
  it('answers a session for the right password, with any email case', async () => {
    const u = await registerUser();
    const res = await post('/auth/login', { email: u.email.toUpperCase(), password: u.password });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 900,
      user: { id: u.user.id },
    });
  });

  it('wrong password and unknown email are the same 401', async () => {
    const u = await registerUser();
    const a = expectProblem(await post('/auth/login', { email: u.email, password: 'wrong-password' }), 401, 'INVALID_CREDENTIALS');
    const b = expectProblem(
      await post('/auth/login', { email: 'nobody@example.test', password: 'wrong-password' }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect(a.detail).toBe(b.detail);
  });

  it('re-hashes a password stored at another cost at the next sign-in, and only after the password checked out', async () => {
    const u = await registerUser();
    const older = await hashPassword(u.password, {
      PASSWORD_HASH_MEMORY_KIB: 2048,
      PASSWORD_HASH_ITERATIONS: 2,
      PASSWORD_HASH_PARALLELISM: 1,
    });
    await t.ctx.db.update(users).set({ passwordHash: older }).where(eq(users.id, u.user.id));
    const stored = async () => (await t.ctx.db.select({ h: users.passwordHash }).from(users).where(eq(users.id, u.user.id)))[0]?.h;
    expectProblem(await post('/auth/login', { email: u.email, password: 'wrong-password' }), 401, 'INVALID_CREDENTIALS');
    expect(await stored()).toBe(older);
    expect((await post('/auth/login', { email: u.email, password: u.password })).statusCode).toBe(200);
    expect((await stored())?.split('$')[3]?.split(',').sort()).toEqual(['m=1024', 'p=1', 't=1']);
    expect((await post('/auth/login', { email: u.email, password: u.password })).statusCode).toBe(200);
    // Sign-ins in parallel each re-hash; one hash is stored, and every one of them signs in.
    await t.ctx.db.update(users).set({ passwordHash: older }).where(eq(users.id, u.user.id));
    const parallel = await Promise.all(Array.from({ length: 5 }, () => post('/auth/login', { email: u.email, password: u.password })));
    expect(parallel.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
  });

  it('refuses a suspended account (403) and lets it in once the suspension has lapsed', async () => {
    const u = await registerUser();
    await t.ctx.db.update(users).set({ status: 'suspended' }).where(eq(users.id, u.user.id));
    expectProblem(await post('/auth/login', { email: u.email, password: u.password }), 403, 'ACCOUNT_SUSPENDED');
    await t.ctx.db
      .update(users)
      .set({ suspendedUntil: new Date(Date.now() - 1000) })
      .where(eq(users.id, u.user.id));
    expect((await post('/auth/login', { email: u.email, password: u.password })).statusCode).toBe(200);
  });

  it('rejects a body without password (400)', async () => {
    expectProblem(await post('/auth/login', { email: 'a@b.test' }), 400, 'VALIDATION_FAILED');
  });
});

describe('access tokens', () => {
  it('no token on a protected route is 401', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me' }), 401, 'UNAUTHORIZED');
  });

  it('forged, expired, alg:none, wrong-typ and malformed tokens are 401', async () => {
    const u = await registerUser();
    const now = Math.floor(Date.now() / 1000);
    const cases = [
      craftJwt({ sub: u.user.id, typ: 'access', iat: now, exp: now + 600 }, { secret: 'some-other-secret-of-sufficient-length!!' }),
      craftJwt({ sub: u.user.id, typ: 'access', iat: now - 1200, exp: now - 300 }),
      craftJwt({ sub: u.user.id, typ: 'access', iat: now, exp: now + 600 }, { alg: 'none', secret: null }),
      craftJwt({ sub: u.user.id, typ: '2fa', iat: now, exp: now + 600 }),
      craftJwt({ sub: u.user.id, iat: now, exp: now + 600 }),
      // Issued in the future: its exp - iat is an access token's, but it would live a year.
      craftJwt({ sub: u.user.id, typ: 'access', iat: now + 31_536_000, exp: now + 31_536_600 }),
      u.refreshToken,
      'not.a.jwt',
    ];
    for (const token of cases) {
      expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) }), 401, 'INVALID_TOKEN');
    }
    // The control: the same claims properly signed work.
    const good = craftJwt({ sub: u.user.id, typ: 'access', iat: now, exp: now + 600 });
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(good) })).statusCode).toBe(200);
  });

  it('tokens without exp (or iat), or living longer than an access token may, are 401', async () => {
    const u = await registerUser();
    const now = Math.floor(Date.now() / 1000);
    const cases = [
      craftJwt({ sub: u.user.id, typ: 'access', iat: now }),
      craftJwt({ sub: u.user.id, typ: 'access' }),
      craftJwt({ sub: u.user.id, typ: 'access', exp: now + 600 }),
      // Signed with the right secret but issued as if for ten years: older than JWT_ACCESS_TTL_SECONDS allows.
      craftJwt({ sub: u.user.id, typ: 'access', iat: now - 86_400, exp: now + 10 * 365 * 86_400 }),
      // One second longer than an access token lives is longer.
      craftJwt({ sub: u.user.id, typ: 'access', iat: now - 10, exp: now - 10 + t.ctx.config.JWT_ACCESS_TTL_SECONDS + 1 }),
    ];
    for (const token of cases) {
      expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) }), 401, 'INVALID_TOKEN');
    }
    // Exactly the lifetime the service signs (exp - iat = JWT_ACCESS_TTL_SECONDS) is fine.
    const exact = craftJwt({ sub: u.user.id, typ: 'access', iat: now - 10, exp: now - 10 + t.ctx.config.JWT_ACCESS_TTL_SECONDS });
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(exact) })).statusCode).toBe(200);
    // Sessions opened at once (the same second) get tokens of their own, not the same bytes.
    const logins = await Promise.all(
      [0, 1, 2].map(async () => (await post('/auth/login', { email: u.email, password: u.password })).json().accessToken as string),
    );
    expect(new Set([u.accessToken, ...logins]).size).toBe(4);
    // And the service's own tokens are exactly that.
    const [, payload] = u.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString()) as { iat: number; exp: number };
    expect(claims.exp - claims.iat).toBe(t.ctx.config.JWT_ACCESS_TTL_SECONDS);
  });

  it('a token of a deleted user is 401', async () => {
    const u = await registerUser();
    await t.ctx.db.delete(users).where(eq(users.id, u.user.id));
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(u.accessToken) }), 401);
  });
});

describe('POST /auth/refresh', () => {
  it('rotates: the new pair works, the old refresh token is used up', async () => {
    const u = await registerUser();
    const res = await post('/auth/refresh', { refreshToken: u.refreshToken });
    expect(res.statusCode).toBe(200);
    const next = res.json();
    expect(next.refreshToken).not.toBe(u.refreshToken);
    expect(next.user.id).toBe(u.user.id);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(next.accessToken) })).statusCode).toBe(200);
    const rows = await t.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, u.user.id));
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.familyId)).size).toBe(1);
    expect(rows.find((r) => r.tokenHash === sha256Hex(u.refreshToken))?.rotatedAt).toBeInstanceOf(Date);
  });

  it('reusing a rotated token revokes the whole family', async () => {
    const u = await registerUser();
    const second = (await post('/auth/refresh', { refreshToken: u.refreshToken })).json();
    await ageRotation(u.refreshToken);
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');
    // The legitimate holder's newer token died with the family.
    expectProblem(await post('/auth/refresh', { refreshToken: second.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');
    const rows = await t.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, u.user.id));
    expect(rows.every((r) => r.revokedAt !== null)).toBe(true);
  });

  it('by default (no grace) reusing the old token at once revokes the whole family', async () => {
    const d = await createTestApp({ env: GENEROUS_LIMITS });
    try {
      const login = await d.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email: `grace0-${randomUUID().slice(0, 6)}@example.test`, password: 'a-good-password', name: 'G' },
      });
      const r0 = login.json().refreshToken as string;
      const refresh = (refreshToken: string) => d.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } });
      const r1 = (await refresh(r0)).json().refreshToken as string;
      expectProblem(await refresh(r0), 401, 'REFRESH_TOKEN_REUSED');
      expectProblem(await refresh(r1), 401, 'REFRESH_TOKEN_REUSED');
    } finally {
      await d.close();
    }
  });

  it('concurrent refreshes with one token (a second tab, a retry) all get the one same successor', async () => {
    const u = await registerUser();
    const results = await Promise.all([1, 2, 3].map(() => post('/auth/refresh', { refreshToken: u.refreshToken })));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    const successors = new Set(results.map((r) => r.json().refreshToken as string));
    expect(successors.size).toBe(1);
    const [successor] = [...successors] as [string];
    // One rotation only: the original and its one successor, and the successor still works.
    const rows = await t.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, u.user.id));
    expect(rows).toHaveLength(2);
    expect((await post('/auth/refresh', { refreshToken: successor })).statusCode).toBe(200);
  });

  it('the grace ends when the successor is used, and after REFRESH_REUSE_GRACE_SECONDS (RFC 9700 4.14.2)', async () => {
    const u = await registerUser();
    const first = (await post('/auth/refresh', { refreshToken: u.refreshToken })).json();
    const again = await post('/auth/refresh', { refreshToken: u.refreshToken });
    expect(again.statusCode).toBe(200);
    expect(again.json().refreshToken).toBe(first.refreshToken);
    // The successor was used: the old token is now a replay, and the whole family goes.
    const third = (await post('/auth/refresh', { refreshToken: first.refreshToken })).json();
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');
    expectProblem(await post('/auth/refresh', { refreshToken: third.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');

    // Past the window the same successor is not handed out again, even while it is unused.
    const v = await registerUser();
    const next = (await post('/auth/refresh', { refreshToken: v.refreshToken })).json();
    await ageRotation(v.refreshToken);
    expectProblem(await post('/auth/refresh', { refreshToken: v.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');
    expectProblem(await post('/auth/refresh', { refreshToken: next.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');
  });

  it('a token just rotated, after a logout or a password change ended its sign-in, is invalid, not a theft', async () => {
    for (const end of ['logout', 'password'] as const) {
      const u = await registerUser();
      const next = (await post('/auth/refresh', { refreshToken: u.refreshToken })).json();
      if (end === 'logout') expect((await post('/auth/logout', { refreshToken: next.refreshToken })).statusCode).toBe(204);
      else {
        const changed = await t.app.inject({
          method: 'PUT',
          url: '/api/auth/password',
          headers: { authorization: `Bearer ${next.accessToken}` },
          payload: { currentPassword: 'a-good-password', newPassword: 'another-good-password' },
        });
        expect(changed.statusCode, changed.body).toBe(200);
      }
      // The second tab's retry with the token it held, inside the grace window.
      expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 401, 'INVALID_REFRESH_TOKEN');
      const rows = await t.ctx.db.select().from(refreshTokens).where(eq(refreshTokens.userId, u.user.id));
      expect(rows.some((r) => r.revokedForReuse)).toBe(false);
    }
  });

  it('a spent token sent to logout is a replay too: the family is revoked for reuse, not ended as a plain logout', async () => {
    const u = await registerUser();
    const r1 = (await post('/auth/refresh', { refreshToken: u.refreshToken })).json();
    const r2 = (await post('/auth/refresh', { refreshToken: r1.refreshToken })).json();
    // The first token's successor was used: any use of it now is a replay, logout included.
    expect((await post('/auth/logout', { refreshToken: u.refreshToken })).statusCode).toBe(204);
    expectProblem(await post('/auth/refresh', { refreshToken: r2.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 401, 'REFRESH_TOKEN_REUSED');
  });

  it('unknown and expired tokens are 401; a bad body is 400', async () => {
    expectProblem(await post('/auth/refresh', { refreshToken: 'x'.repeat(43) }), 401, 'INVALID_REFRESH_TOKEN');
    const u = await registerUser();
    await t.ctx.db
      .update(refreshTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(refreshTokens.userId, u.user.id));
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 401, 'INVALID_REFRESH_TOKEN');
    expectProblem(await post('/auth/refresh', {}), 400, 'VALIDATION_FAILED');
  });

  it('a suspended user cannot refresh (403)', async () => {
    const u = await registerUser();
    await t.ctx.db.update(users).set({ status: 'suspended' }).where(eq(users.id, u.user.id));
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 403, 'ACCOUNT_SUSPENDED');
  });

  it('suspended through the route (which revokes every token): the refresh says suspended, not "token reused"', async () => {
    const u = await registerUser();
    const admin = await t.signIn('admin');
    const suspend = await post('/moderation/suspend', { userId: u.user.id, reason: 'spam' }, admin.headers);
    expect(suspend.statusCode).toBe(200);
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 403, 'ACCOUNT_SUSPENDED');
  });
});

describe('POST /auth/logout', () => {
  it('revokes the family of the token without an access token (204)', async () => {
    const u = await registerUser();
    const other = (await post('/auth/login', { email: u.email, password: u.password })).json();
    const res = await post('/auth/logout', { refreshToken: u.refreshToken });
    expect(res.statusCode).toBe(204);
    // Revoked, never replayed: invalid, not "reused" (README's error table).
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 401, 'INVALID_REFRESH_TOKEN');
    // Another sign-in of the same user is untouched.
    expect((await post('/auth/refresh', { refreshToken: other.refreshToken })).statusCode).toBe(200);
  });

  it('allSessions revokes every refresh token of the owner', async () => {
    const u = await registerUser();
    const other = (await post('/auth/login', { email: u.email, password: u.password })).json();
    expect((await post('/auth/logout', { refreshToken: u.refreshToken, allSessions: true })).statusCode).toBe(204);
    expectProblem(await post('/auth/refresh', { refreshToken: other.refreshToken }), 401, 'INVALID_REFRESH_TOKEN');
  });

  it('allSessions needs a current refresh token, not a rotated, revoked or unknown one (401)', async () => {
    const u = await registerUser();
    const other = (await post('/auth/login', { email: u.email, password: u.password })).json();
    const rotated = u.refreshToken;
    const current = (await post('/auth/refresh', { refreshToken: rotated })).json();
    expectProblem(await post('/auth/logout', { refreshToken: rotated, allSessions: true }), 401, 'INVALID_REFRESH_TOKEN');
    expectProblem(await post('/auth/logout', { refreshToken: 'z'.repeat(43), allSessions: true }), 401, 'INVALID_REFRESH_TOKEN');
    // Nothing was revoked: both sign-ins still work, and the current token may sign out everywhere.
    const otherNext = (await post('/auth/refresh', { refreshToken: other.refreshToken })).json();
    expect(otherNext.refreshToken).toEqual(expect.any(String));
    expect((await post('/auth/logout', { refreshToken: current.refreshToken, allSessions: true })).statusCode).toBe(204);
    expectProblem(await post('/auth/refresh', { refreshToken: otherNext.refreshToken }), 401);
  });

  it('ignores an unknown token (204) and validates the body (400)', async () => {
    expect((await post('/auth/logout', { refreshToken: 'y'.repeat(43) })).statusCode).toBe(204);
    expectProblem(await post('/auth/logout', { token: 'x' }), 400);
  });
});

describe('GET /auth/me and PATCH /auth/profile', () => {
  it('me returns the user without secrets', async () => {
    const u = await registerUser();
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(u.accessToken) });
    expect(res.statusCode).toBe(200);
    for (const key of SECRET_KEYS) expect(res.json()).not.toHaveProperty(key);
  });

  it('updates name, bio and avatar', async () => {
    const u = await registerUser();
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/auth/profile',
      headers: bearer(u.accessToken),
      payload: { name: 'New Name', bio: 'Hello', avatarUrl: 'https://example.test/a.png' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'New Name', bio: 'Hello', avatarUrl: 'https://example.test/a.png', role: 'user' });
  });

  it('cannot set role, reputation or status (400) and needs a token (401)', async () => {
    const u = await registerUser();
    for (const payload of [{ role: 'admin' }, { reputation: 1000 }, { status: 'active' }]) {
      const res = await t.app.inject({ method: 'PATCH', url: '/api/auth/profile', headers: bearer(u.accessToken), payload });
      expectProblem(res, 400, 'VALIDATION_FAILED');
    }
    const [row] = await t.ctx.db.select({ role: users.role, reputation: users.reputation }).from(users).where(eq(users.id, u.user.id));
    expect(row).toEqual({ role: 'user', reputation: 0 });
    expectProblem(await t.app.inject({ method: 'PATCH', url: '/api/auth/profile', payload: { name: 'x' } }), 401);
    expectProblem(
      await t.app.inject({
        method: 'PATCH',
        url: '/api/auth/profile',
        headers: bearer(u.accessToken),
        payload: { avatarUrl: 'javascript:alert(1)' },
      }),
      400,
    );
    // An http(s) URL needs a host; its scheme may be in any case.
    const profile = (avatarUrl: string) =>
      t.app.inject({ method: 'PATCH', url: '/api/auth/profile', headers: bearer(u.accessToken), payload: { avatarUrl } });
    for (const bad of ['http://', 'https://', 'https:///a.png', 'http://@', 'http://:80', 'https://cdn.example.test\\a.png'])
      expectProblem(await profile(bad), 400);
    expect((await profile('https://user@cdn.example.test:8443/a.png?x=1#y')).statusCode).toBe(200);
    expect((await profile('HTTPS://cdn.example.test/a.png')).statusCode).toBe(200);
  });
});

describe('PUT /auth/password', () => {
  it('changes the password, revokes the old refresh tokens and answers a new session', async () => {
    const u = await registerUser();
    const res = await changePassword(u);
    expect(res.statusCode).toBe(200);
    const fresh = res.json();
    expectProblem(await post('/auth/refresh', { refreshToken: u.refreshToken }), 401);
    expect((await post('/auth/refresh', { refreshToken: fresh.refreshToken })).statusCode).toBe(200);
    expectProblem(await post('/auth/login', { email: u.email, password: u.password }), 401);
    expect((await post('/auth/login', { email: u.email, password: 'a-brand-new-password' })).statusCode).toBe(200);
  });

  it('refuses a wrong current password (400) and a short new one (400)', async () => {
    const u = await registerUser();
    const wrong = await t.app.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers: bearer(u.accessToken),
      payload: { currentPassword: 'not-my-password', newPassword: 'a-brand-new-password' },
    });
    expect(expectProblem(wrong, 400, 'WRONG_PASSWORD').errors?.[0]?.path).toBe('body.currentPassword');
    const short = await t.app.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers: bearer(u.accessToken),
      payload: { currentPassword: u.password, newPassword: 'short' },
    });
    expectProblem(short, 400, 'VALIDATION_FAILED');
    expectProblem(
      await t.app.inject({ method: 'PUT', url: '/api/auth/password', payload: { currentPassword: 'a', newPassword: 'bbbbbbbb' } }),
      401,
    );
  });
});

describe('two password changes at once', () => {
  it('the second, checked against the password the first replaced, is refused: the password that works is the one answered 200', async () => {
    const u = await registerUser();
    const change = (newPassword: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/auth/password',
        headers: bearer(u.accessToken),
        payload: { currentPassword: u.password, newPassword },
      });
    const both = await Promise.all([change('new-password-aaaa1'), change('new-password-bbbb2')]);
    const ok = both.flatMap((res, i) => (res.statusCode === 200 ? [i] : []));
    expect(ok).toHaveLength(1);
    const loser = both[1 - (ok[0] as number)];
    expect(expectProblem(loser as (typeof both)[0], 400, 'WRONG_PASSWORD').errors?.[0]?.path).toBe('body.currentPassword');
    const passwords = ['new-password-aaaa1', 'new-password-bbbb2'];
    expect((await post('/auth/login', { email: u.email, password: passwords[ok[0] as number] })).statusCode).toBe(200);
    expectProblem(await post('/auth/login', { email: u.email, password: passwords[1 - (ok[0] as number)] }), 401);
  });
});

describe('a password change racing a suspension or a deletion of its account', () => {
  const change = (u: Awaited<ReturnType<typeof registerUser>>) => () =>
    t.app.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers: bearer(u.accessToken),
      payload: { currentPassword: u.password, newPassword: 'a-brand-new-password' },
    });

  it('a suspension that commits while the password is changed is seen: 403 and no session outlives it', async () => {
    const u = await registerUser();
    const res = await whileHeld(t.ctx.pool, `UPDATE users SET status = 'suspended' WHERE id = $1`, [u.user.id], change(u));
    expectProblem(res, 403, 'ACCOUNT_SUSPENDED');
    const live = await t.ctx.pool.query(`SELECT count(*)::int AS n FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL`, [
      u.user.id,
    ]);
    expect(live.rows[0].n).toBe(1);
    // The password did not change either.
    await t.ctx.db.update(users).set({ status: 'active' }).where(eq(users.id, u.user.id));
    expect((await post('/auth/login', { email: u.email, password: u.password })).statusCode).toBe(200);
  });

  it('a deletion that commits meanwhile is 401 INVALID_TOKEN (the token names nobody), not an undeclared 404', async () => {
    const u = await registerUser();
    const res = await whileHeld(t.ctx.pool, 'DELETE FROM users WHERE id = $1', [u.user.id], change(u));
    expectProblem(res, 401, 'INVALID_TOKEN');
  });
});

describe('revoking sessions while a refresh is under way', () => {
  // A refresh is held between its rotation and its commit (a trigger sleeps on inserting the new token of
  // the chosen sign-ins), and the revocation starts meanwhile: the new token must not escape it.
  beforeAll(async () => {
    await t.ctx.pool.query(`
      CREATE TABLE test_paused_families (family_id uuid PRIMARY KEY);
      CREATE FUNCTION test_pause_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM test_paused_families WHERE family_id = NEW.family_id) THEN PERFORM pg_sleep(1.5); END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_pause_refresh BEFORE INSERT ON refresh_tokens FOR EACH ROW EXECUTE FUNCTION test_pause_refresh();`);
  });
  afterAll(async () => {
    await t.ctx.pool.query(
      `DROP TRIGGER test_pause_refresh ON refresh_tokens; DROP FUNCTION test_pause_refresh(); DROP TABLE test_paused_families;`,
    );
  });
  /**
   * Starts a refresh of `u`'s token and resolves once it sleeps in the trigger, holding its locks (its
   * owner's row, its rotated token): what the caller starts next races a refresh already under way.
   */
  async function pausedRefresh(u: { refreshToken: string }) {
    await t.ctx.pool.query(`INSERT INTO test_paused_families SELECT family_id FROM refresh_tokens WHERE token_hash = $1`, [
      sha256Hex(u.refreshToken),
    ]);
    const refreshing = post('/auth/refresh', { refreshToken: u.refreshToken });
    for (let i = 0; i < 500; i += 1) {
      const { rows } = await t.ctx.pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep' AND query ILIKE 'insert into "refresh_tokens"%'`,
      );
      if (rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    return { refreshing };
  }

  it('a password change revokes the token a racing refresh was issuing', async () => {
    const u = await registerUser();
    const { refreshing } = await pausedRefresh(u);
    const change = changePassword(u);
    const [refreshed, changed] = await Promise.all([refreshing, change]);
    expect(changed.statusCode).toBe(200);
    expect(refreshed.statusCode).toBe(200);
    expectProblem(await post('/auth/refresh', { refreshToken: refreshed.json().refreshToken }), 401);
    expect((await post('/auth/refresh', { refreshToken: changed.json().refreshToken })).statusCode).toBe(200);
  });

  it('a sign-in whose password changed while it was being checked gets no session', async () => {
    const u = await registerUser();
    const [checked] = await t.ctx.db.select().from(users).where(eq(users.id, u.user.id));
    const changed = await changePassword(u);
    expect(changed.statusCode).toBe(200);
    const signer = { accessToken: () => 'token', accessTtlSeconds: 900 } as unknown as TokenSigner;
    // The login checked the old password against this hash; the change committed before it stored its session.
    await expect(
      startSession(
        t.ctx,
        signer,
        checked as NonNullable<typeof checked>,
        {},
        {
          recheck: (current) => {
            if (current.passwordHash !== checked?.passwordHash) throw unauthorized('changed', Code.INVALID_CREDENTIALS);
          },
        },
      ),
    ).rejects.toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS' });
    const live = await t.ctx.pool.query(`SELECT count(*)::int AS n FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL`, [
      u.user.id,
    ]);
    expect(live.rows[0].n).toBe(1);
  });

  it('a suspension waits for a racing refresh (no deadlock) and revokes its token', async () => {
    const admin = await t.signIn('admin');
    const u = await registerUser();
    const { refreshing } = await pausedRefresh(u);
    const suspend = t.app.inject({
      method: 'POST',
      url: '/api/moderation/suspend',
      headers: admin.headers,
      payload: { userId: u.user.id, reason: 'racing a refresh' },
    });
    const [refreshed, suspended] = await Promise.all([refreshing, suspend]);
    expect(suspended.statusCode).toBe(200);
    expect(refreshed.statusCode).toBe(200);
    // Its new token was revoked with the rest; the refresh is told of the suspension, not of a reuse.
    expectProblem(await post('/auth/refresh', { refreshToken: refreshed.json().refreshToken }), 403, 'ACCOUNT_SUSPENDED');
    const live = await t.ctx.pool.query(`SELECT count(*)::int AS n FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL`, [
      u.user.id,
    ]);
    expect(live.rows[0].n).toBe(0);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(u.accessToken) })).statusCode).toBe(403);
  });
});

describe('GET /auth/export', () => {
  it("contains the caller's own data and nothing of anyone else's", async () => {
    const me = await registerUser();
    const other = await registerUser();
    const [myPost] = await t.ctx.db.insert(communityPosts).values({ authorId: me.user.id, title: 'My question', body: 'mine' }).returning();
    const [theirPost] = await t.ctx.db
      .insert(communityPosts)
      .values({ authorId: other.user.id, title: 'Their question', body: 'theirs' })
      .returning();
    await t.ctx.db.insert(comments).values([
      { postId: theirPost!.id, authorId: me.user.id, body: 'my comment' },
      { postId: myPost!.id, authorId: other.user.id, body: 'their comment' },
    ]);
    await t.ctx.db.insert(postVotes).values([
      { postId: theirPost!.id, userId: me.user.id, value: 1 },
      { postId: myPost!.id, userId: other.user.id, value: -1 },
    ]);
    await t.ctx.db.insert(notifications).values([
      { userId: me.user.id, kind: 'post_answered', title: 'for me' },
      { userId: other.user.id, kind: 'post_answered', title: 'for them' },
    ]);
    await t.ctx.db.insert(reputationLogs).values([
      { userId: me.user.id, points: 5, reason: 'mine' },
      { userId: other.user.id, points: 7, reason: 'theirs' },
    ]);
    await t.ctx.db.insert(badges).values({ userId: other.user.id, name: 'first_responder' });
    await t.ctx.db.insert(searchLogs).values([
      { userId: me.user.id, query: 'my search', normalizedQuery: 'my search', resultCount: 1 },
      { userId: other.user.id, query: 'their search', normalizedQuery: 'their search', resultCount: 0 },
    ]);
    await t.ctx.db
      .insert(moderationLogs)
      .values({ actorId: other.user.id, targetUserId: me.user.id, action: 'suspend', reason: 'was rude' });

    const res = await t.app.inject({ method: 'GET', url: '/api/auth/export', headers: bearer(me.accessToken) });
    expect(res.statusCode).toBe(200);
    const data = res.json();
    expect(data.profile.id).toBe(me.user.id);
    expect(data.posts.map((p: { title: string }) => p.title)).toEqual(['My question']);
    expect(data.comments.map((c: { body: string }) => c.body)).toEqual(['my comment']);
    expect(data.votes.posts).toEqual([expect.objectContaining({ postId: theirPost!.id, value: 1 })]);
    expect(data.notifications.map((n: { title: string }) => n.title)).toEqual(['for me']);
    expect(data.reputation.history.map((r: { reason: string }) => r.reason)).toEqual(['mine']);
    expect(data.reputation.badges).toEqual([]);
    expect(data.activity.searches.map((r: { query: string }) => r.query)).toEqual(['my search']);
    expect(data.moderation).toEqual([expect.objectContaining({ action: 'suspend', reason: 'was rude' })]);
    const text = res.body;
    for (const needle of ['Their question', 'their comment', 'for them', 'theirs', 'their search', other.email, other.user.id])
      expect(text).not.toContain(needle);
    for (const key of SECRET_KEYS) expect(text).not.toContain(`"${key}"`);
    expect(text).not.toContain('embedding');
  });

  it('lists an unresolved search for each signed-in user who logged it, not only the first', async () => {
    const [first, second, bystander] = [await registerUser(), await registerUser(), await registerUser()];
    for (const who of [first, second])
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/search/unresolved',
            headers: bearer(who.accessToken),
            payload: { query: 'where can I buy a hoodie' },
          })
        ).statusCode,
      ).toBe(201);
    const unresolved = async (who: { accessToken: string }) =>
      (await t.app.inject({ method: 'GET', url: '/api/auth/export', headers: bearer(who.accessToken) }))
        .json()
        .activity.unresolvedSearches.map((r: { query: string }) => r.query);
    expect(await unresolved(first)).toEqual(['where can I buy a hoodie']);
    expect(await unresolved(second)).toEqual(['where can I buy a hoodie']);
    expect(await unresolved(bystander)).toEqual([]);
  });

  it('carries an AI answer of my post only once it is approved (unapproved ones are staff-only)', async () => {
    const me = await registerUser();
    await t.ctx.db.insert(communityPosts).values([
      { authorId: me.user.id, title: 'Suggested', body: 'b', aiAnswer: 'draft AI text', aiAnswerStatus: 'suggested' },
      { authorId: me.user.id, title: 'Approved', body: 'b', aiAnswer: 'published AI text', aiAnswerStatus: 'approved' },
    ]);
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/export', headers: bearer(me.accessToken) });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('draft AI text');
    const posts = res.json().posts as { title: string; aiAnswer: string | null; aiAnswerStatus: string | null }[];
    expect(posts.find((p) => p.title === 'Suggested')).toMatchObject({ aiAnswer: null, aiAnswerStatus: null });
    expect(posts.find((p) => p.title === 'Approved')).toMatchObject({ aiAnswer: 'published AI text', aiAnswerStatus: 'approved' });
  });

  it('carries my FAQ suggestions (as I wrote them), my FAQ flags and my AI-answer votes, and nobody else’s', async () => {
    const [me, other] = [await registerUser(), await registerUser()];
    const staff = await t.signIn('admin');
    const as = (who: { accessToken: string }) => bearer(who.accessToken);
    const suggest = await post('/faq/suggest', { question: 'Where are my lockers?', answer: 'Next to the gym, I think.' }, as(me));
    expect(suggest.statusCode, suggest.body).toBe(201);
    const mine = suggest.json() as { id: string };
    expect((await post('/faq/suggest', { question: 'Their suggested question?' }, as(other))).statusCode).toBe(201);
    // Staff rewrite my draft: the rewrite is draft text (staff-only), not mine.
    const edit = await t.app.inject({
      method: 'PUT',
      url: `/api/faq/${mine.id}`,
      headers: staff.headers,
      payload: { question: 'Where are the lockers? (staff rewrite)', answer: 'Staff draft answer, room 12.' },
    });
    expect(edit.statusCode, edit.body).toBe(200);

    const created = await post('/faq', { question: 'When does the library open?', answer: 'At 8.' }, staff.headers);
    expect(created.statusCode, created.body).toBe(201);
    const faq = created.json() as { id: string };
    expect((await post(`/faq/${faq.id}/flag`, { reason: 'my flag: hours changed' }, as(me))).statusCode).toBe(200);
    expect((await post(`/faq/${faq.id}/flag`, { reason: 'their flag reason' }, as(other))).statusCode).toBe(200);

    const [answered] = await t.ctx.db
      .insert(communityPosts)
      .values({ authorId: other.user.id, title: 'AI answered', body: 'b', aiAnswer: 'published AI text', aiAnswerStatus: 'approved' })
      .returning();
    const vote = (who: { accessToken: string }, value: 1 | -1) =>
      post(`/community/posts/${answered!.id}/ai-answer/vote`, { value }, as(who));
    expect((await vote(me, 1)).statusCode).toBe(200);
    expect((await vote(other, -1)).statusCode).toBe(200);

    const res = await t.app.inject({ method: 'GET', url: '/api/auth/export', headers: as(me) });
    expect(res.statusCode).toBe(200);
    const data = res.json();
    expect(data.activity.faqSuggestions).toEqual([
      {
        id: mine.id,
        question: 'Where are my lockers?',
        answer: 'Next to the gym, I think.',
        reviewStatus: 'draft',
        createdAt: expect.any(String),
      },
    ]);
    expect(data.activity.faqFlags).toEqual([{ faqId: faq.id, reason: 'my flag: hours changed', createdAt: expect.any(String) }]);
    expect(data.votes.aiAnswers).toEqual([{ postId: answered!.id, value: 1, createdAt: expect.any(String) }]);
    for (const needle of ['staff rewrite', 'Staff draft answer', 'Their suggested question', 'their flag reason'])
      expect(res.body).not.toContain(needle);
    // The other user's export has theirs, not mine.
    const theirs = (await t.app.inject({ method: 'GET', url: '/api/auth/export', headers: as(other) })).json();
    expect(theirs.activity.faqSuggestions.map((s: { question: string }) => s.question)).toEqual(['Their suggested question?']);
    expect(theirs.activity.faqFlags.map((f: { reason: string }) => f.reason)).toEqual(['their flag reason']);
    expect(theirs.votes.aiAnswers.map((v: { value: number }) => v.value)).toEqual([-1]);
  });

  it('needs a token (401)', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/export' }), 401);
  });
});
