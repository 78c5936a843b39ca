import { adminTwoFactorRequired, fixedClock, loadConfig, totpCodeAt } from '@cfaq/core';
import { TEST_ENV } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp, whileHeld } from './helpers.js';

/** ADMIN_2FA_REQUIRED: admin routes stay closed to an admin until TOTP is on, except its setup routes. */
const clock = fixedClock('2026-03-01T12:00:10Z');
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, ADMIN_2FA_REQUIRED: 'true' }, clock });
});
afterAll(async () => {
  await t.close();
});

describe('ADMIN_2FA_REQUIRED', () => {
  it('answers 403 ADMIN_2FA_REQUIRED on admin routes until the admin enables TOTP; the setup routes stay open', async () => {
    const admin = await t.signIn('admin');
    const adminRoute = () => t.app.inject({ method: 'GET', url: '/api/admin/users', headers: admin.headers });
    expectProblem(await adminRoute(), 403, 'ADMIN_2FA_REQUIRED');
    // Routes for every signed-in user are not affected.
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers })).statusCode).toBe(200);

    const setup = await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', payload: {}, headers: admin.headers });
    expect(setup.statusCode).toBe(200);
    const { secret } = setup.json() as { secret: string };
    const enable = await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/enable',
      payload: { code: await totpCodeAt(secret, clock.now()) },
      headers: admin.headers,
    });
    expect(enable.statusCode).toBe(200);
    expect((await adminRoute()).statusCode).toBe(200);
  });

  it('an enable whose setup was replaced meanwhile says so (422 TWO_FACTOR_NOT_SET_UP), not that it was enabled', async () => {
    const admin = await t.signIn('admin');
    const setup = await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', payload: {}, headers: admin.headers });
    const { secret } = setup.json() as { secret: string };
    // A second setup, under way: it has replaced the pending secret (uncommitted) as the enable runs.
    const code = await totpCodeAt(secret, clock.now());
    const enable = await whileHeld(t.ctx.pool, `UPDATE users SET totp_pending_secret = 'v1.replaced' WHERE id = $1`, [admin.id], () =>
      t.app.inject({ method: 'POST', url: '/api/auth/2fa/enable', payload: { code }, headers: admin.headers }),
    );
    expectProblem(enable, 422, 'TWO_FACTOR_NOT_SET_UP');
    // The refused enable spent no time step (a code of the new secret in this step is not refused as used).
    const [row] = (await t.ctx.pool.query(`SELECT totp_last_used_step AS step FROM users WHERE id = $1`, [admin.id])).rows;
    expect(row?.step).toBeNull();
  });

  it('an enable that loses the same code to a winning enable, and a setup after it, say two-factor is on (409)', async () => {
    const admin = await t.signIn('admin');
    const setup = await t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', payload: {}, headers: admin.headers });
    const { secret } = setup.json() as { secret: string };
    const code = await totpCodeAt(secret, clock.now());
    const step = Math.floor(clock.now().getTime() / 30_000);
    // The winning enable, committed while this one waits: it spent the step and turned two-factor on.
    const winner = `UPDATE users SET totp_last_used_step = ${step}, totp_enabled = true, totp_secret = totp_pending_secret, totp_pending_secret = null WHERE id = $1`;
    const loser = await whileHeld(t.ctx.pool, winner, [admin.id], () =>
      t.app.inject({ method: 'POST', url: '/api/auth/2fa/enable', payload: { code }, headers: admin.headers }),
    );
    expectProblem(loser, 409, 'TWO_FACTOR_ALREADY_ENABLED');

    const other = await t.signIn('admin');
    const late = await whileHeld(t.ctx.pool, 'UPDATE users SET totp_enabled = true WHERE id = $1', [other.id], () =>
      t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', payload: {}, headers: other.headers }),
    );
    expectProblem(late, 409, 'TWO_FACTOR_ALREADY_ENABLED');
  });

  it('is on by default in production and off elsewhere; an explicit value wins', () => {
    // Production refuses the tests' cheap password hashing: give it the floor.
    const prod = { ...TEST_ENV, NODE_ENV: 'production', PASSWORD_HASH_MEMORY_KIB: '19456', PASSWORD_HASH_ITERATIONS: '2' };
    expect(adminTwoFactorRequired(loadConfig(prod))).toBe(true);
    expect(adminTwoFactorRequired(loadConfig({ ...prod, ADMIN_2FA_REQUIRED: 'false' }))).toBe(false);
    expect(adminTwoFactorRequired(loadConfig(TEST_ENV))).toBe(false);
    expect(adminTwoFactorRequired(loadConfig({ ...TEST_ENV, ADMIN_2FA_REQUIRED: 'true' }))).toBe(true);
  });
});
