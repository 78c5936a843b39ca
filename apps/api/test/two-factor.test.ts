import { fixedClock, totpCodeAt } from '@cfaq/core';
import { adminLogs, recoveryCodes, users } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';
import { bearer, craftJwt } from './tokens.js';

// Mid-step start, so "previous step" and "two steps back" are unambiguous.
const clock = fixedClock('2026-03-01T12:00:10Z');
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS, clock });
});
afterAll(async () => {
  await t.close();
});

const STEP = 30_000;
const codeAt = (secret: string, offsetSteps = 0) => totpCodeAt(secret, new Date(clock.now().getTime() + offsetSteps * STEP));
const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/api${url}`, payload, headers });

async function enrolledAdmin() {
  const admin = await t.signIn('admin');
  const setup = (await post('/auth/2fa/setup', {}, admin.headers)).json() as { secret: string; otpauthUrl: string };
  const enable = await post('/auth/2fa/enable', { code: await codeAt(setup.secret) }, admin.headers);
  expect(enable.statusCode).toBe(200);
  clock.advance(STEP); // the enrolment code's step is used up
  return { ...admin, secret: setup.secret, recoveryCodes: (enable.json() as { recoveryCodes: string[] }).recoveryCodes };
}

async function challenge(who: { email: string; password: string }) {
  const res = await post('/auth/login', { email: who.email, password: who.password });
  expect(res.statusCode).toBe(200);
  const body = res.json();
  expect(body).toEqual({ twoFactorRequired: true, challengeToken: expect.any(String) });
  return body.challengeToken as string;
}

describe('enrolment', () => {
  it('setup answers a secret and an otpauth URI; enable confirms it and answers recovery codes once', async () => {
    const admin = await t.signIn('admin');
    const setup = await post('/auth/2fa/setup', {}, admin.headers);
    expect(setup.statusCode).toBe(200);
    const { secret, otpauthUrl } = setup.json();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/community-faq:/);
    expect(otpauthUrl).toContain(`secret=${secret}`);

    expectProblem(
      await post('/auth/2fa/enable', { code: '000000' === (await codeAt(secret)) ? '111111' : '000000' }, admin.headers),
      400,
      'INVALID_TWO_FACTOR_CODE',
    );
    const res = await post('/auth/2fa/enable', { code: await codeAt(secret) }, admin.headers);
    expect(res.statusCode).toBe(200);
    const codes = res.json().recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    const [row] = await t.ctx.db.select().from(users).where(eq(users.id, admin.id));
    expect(row?.totpEnabled).toBe(true);
    expect(row?.totpPendingSecret).toBeNull();
    expect(row?.totpSecret).not.toContain(secret);
    expect(t.ctx.secrets.decrypt(row?.totpSecret as string, admin.id)).toBe(secret);
    expect(() => t.ctx.secrets.decrypt(row?.totpSecret as string, 'another-row')).toThrow();
    const stored = await t.ctx.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, admin.id));
    expect(stored).toHaveLength(10);
    for (const c of codes) expect(JSON.stringify(stored)).not.toContain(c.replace('-', ''));
    expect((await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.actorId, admin.id))).map((l) => l.action)).toContain(
      'two_factor.enabled',
    );

    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers });
    expect(me.json().twoFactorEnabled).toBe(true);
    expect(me.body).not.toContain(secret);
    expectProblem(await post('/auth/2fa/setup', {}, admin.headers), 409, 'TWO_FACTOR_ALREADY_ENABLED');
    clock.advance(STEP);
  });

  it('is for admins: a user or moderator gets 403, no token 401', async () => {
    for (const role of ['user', 'moderator'] as const) {
      const who = await t.signIn(role);
      expectProblem(await post('/auth/2fa/setup', {}, who.headers), 403, 'TWO_FACTOR_ADMIN_ONLY');
      expectProblem(await post('/auth/2fa/enable', { code: '123456' }, who.headers), 403, 'TWO_FACTOR_ADMIN_ONLY');
    }
    expectProblem(await post('/auth/2fa/setup', {}), 401);
  });

  it('enable without setup is 422; a malformed code is 400', async () => {
    const admin = await t.signIn('admin');
    expectProblem(await post('/auth/2fa/enable', { code: '123456' }, admin.headers), 422, 'TWO_FACTOR_NOT_SET_UP');
    expectProblem(await post('/auth/2fa/enable', { code: '12' }, admin.headers), 400, 'VALIDATION_FAILED');
  });
});

describe('login with two-factor', () => {
  it('login answers a challenge; the challenge is not an access token; verify answers the session', async () => {
    const admin = await enrolledAdmin();
    const token = await challenge(admin);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) }), 401, 'INVALID_TOKEN');
    // As an authenticator app shows it, with a space in the middle.
    const shown = (await codeAt(admin.secret)).replace(/^(\d{3})/, '$1 ');
    const res = await post('/auth/2fa/verify', { challengeToken: token, code: shown });
    expect(res.statusCode).toBe(200);
    const session = res.json();
    expect(session).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), user: { id: admin.id } });
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(session.accessToken) })).statusCode).toBe(200);
  });

  it('accepts the current and previous step, each once; refuses two steps back and replays', async () => {
    const admin = await enrolledAdmin();
    const current = await codeAt(admin.secret);
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: current })).statusCode).toBe(200);
    // Replay of the same code, same step.
    expectProblem(
      await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: current }),
      401,
      'INVALID_TWO_FACTOR_CODE',
    );
    // One step later the previous code is still in the window, but it was used: refused.
    clock.advance(STEP);
    expectProblem(await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: current }), 401);
    // Three steps on: the previous step's (unused) code is accepted...
    clock.advance(3 * STEP);
    expect(
      (await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: await codeAt(admin.secret, -1) })).statusCode,
    ).toBe(200);
    // ...three steps on again: a code two steps back is outside the window, the current one works.
    clock.advance(3 * STEP);
    expectProblem(await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: await codeAt(admin.secret, -2) }), 401);
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: await codeAt(admin.secret) })).statusCode).toBe(
      200,
    );
    // A code of the next step (clock ahead) is not accepted.
    clock.advance(STEP);
    expectProblem(await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: await codeAt(admin.secret, 1) }), 401);
  });

  it('two concurrent verifications with one code: exactly one wins', async () => {
    const admin = await enrolledAdmin();
    const code = await codeAt(admin.secret);
    const [c1, c2] = [await challenge(admin), await challenge(admin)];
    const results = await Promise.all([
      post('/auth/2fa/verify', { challengeToken: c1, code }),
      post('/auth/2fa/verify', { challengeToken: c2, code }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401]);
  });

  it('a recovery code works once in place of a code', async () => {
    const admin = await enrolledAdmin();
    const recovery = admin.recoveryCodes[0] as string;
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: recovery.toUpperCase() })).statusCode).toBe(200);
    expectProblem(
      await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: recovery }),
      401,
      'INVALID_TWO_FACTOR_CODE',
    );
    const used = await t.ctx.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, admin.id));
    expect(used.filter((r) => r.usedAt)).toHaveLength(1);
  });

  it('a challenge completes one sign-in: used again (with another valid code) it is refused', async () => {
    const admin = await enrolledAdmin();
    const token = await challenge(admin);
    clock.advance(1000);
    const [first, second] = admin.recoveryCodes;
    const ok = await post('/auth/2fa/verify', { challengeToken: token, code: first });
    expect(ok.statusCode, ok.body).toBe(200);
    expectProblem(await post('/auth/2fa/verify', { challengeToken: token, code: second }), 401, 'INVALID_CHALLENGE');
    // A new sign-in gets a new challenge, which works.
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge(admin), code: second })).statusCode).toBe(200);

    // Racing uses of one challenge: one signs in, and the others use up none of their codes.
    clock.advance(1000);
    const raced = await challenge(admin);
    clock.advance(1000);
    const codes = admin.recoveryCodes.slice(2, 6);
    const results = await Promise.all(codes.map((code) => post('/auth/2fa/verify', { challengeToken: raced, code })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401, 401, 401]);
    const used = await t.ctx.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, admin.id));
    expect(used.filter((r) => r.usedAt)).toHaveLength(3);
  });

  it('a challenge issued before a password change is spent by it (the old password signs nobody in)', async () => {
    const admin = await enrolledAdmin();
    const token = await challenge(admin);
    clock.advance(1000);
    const changed = await t.app.inject({
      method: 'PUT',
      url: '/api/auth/password',
      headers: admin.headers,
      payload: { currentPassword: admin.password, newPassword: 'a-brand-new-password' },
    });
    expect(changed.statusCode).toBe(200);
    expectProblem(await post('/auth/2fa/verify', { challengeToken: token, code: admin.recoveryCodes[0] }), 401, 'INVALID_CHALLENGE');
  });

  it('refuses forged, expired or access tokens as challenges (401) and a bad body (400)', async () => {
    const admin = await enrolledAdmin();
    const code = await codeAt(admin.secret);
    const now = Math.floor(Date.now() / 1000);
    for (const challengeToken of [
      craftJwt({ sub: admin.id, typ: '2fa', iat: now - 900, exp: now - 600 }),
      craftJwt({ sub: admin.id, typ: '2fa', iat: now, exp: now + 300 }, { secret: 'a-different-secret-of-enough-length!!!!' }),
      t.app.issueAccessToken(admin.id),
      'garbage',
    ]) {
      expectProblem(await post('/auth/2fa/verify', { challengeToken, code }), 401, 'INVALID_CHALLENGE');
    }
    expectProblem(await post('/auth/2fa/verify', { code }), 400);
  });

  it('a suspended admin cannot complete the login (403)', async () => {
    const admin = await enrolledAdmin();
    const token = await challenge(admin);
    await t.ctx.db.update(users).set({ status: 'suspended' }).where(eq(users.id, admin.id));
    expectProblem(await post('/auth/2fa/verify', { challengeToken: token, code: await codeAt(admin.secret) }), 403, 'ACCOUNT_SUSPENDED');
  });
});

describe('POST /auth/2fa/disable', () => {
  it('needs a current code; then login answers tokens directly', async () => {
    const admin = await enrolledAdmin();
    expectProblem(await post('/auth/2fa/disable', { code: await codeAt(admin.secret, -5) }, admin.headers), 400, 'INVALID_TWO_FACTOR_CODE');
    const res = await post('/auth/2fa/disable', { code: await codeAt(admin.secret) }, admin.headers);
    expect(res.statusCode).toBe(204);
    const [row] = await t.ctx.db.select().from(users).where(eq(users.id, admin.id));
    expect(row).toMatchObject({ totpEnabled: false, totpSecret: null });
    expect(await t.ctx.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, admin.id))).toHaveLength(0);
    const login = await post('/auth/login', { email: admin.email, password: admin.password });
    expect(login.json()).toMatchObject({ accessToken: expect.any(String) });
    expectProblem(await post('/auth/2fa/disable', { code: '123456' }, admin.headers), 422, 'TWO_FACTOR_NOT_ENABLED');
    expectProblem(await post('/auth/2fa/disable', { code: '123456' }), 401);
  });
});
