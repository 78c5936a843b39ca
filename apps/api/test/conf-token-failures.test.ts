import { type Config, type CoreContext, confAccessToken, ingestRecording, recordingPayloadOf, SecretBox } from '@cfaq/core';
import { confMeetings, users } from '@cfaq/db/schema/index';
import { type FakeConfProvider, startFakeConfProvider } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * What a failure around the provider's tokens leaves behind: a wrong client secret (the service's
 * configuration, not the user's grant), a refused grant (the connection ends and frees the provider
 * account), a changed ENCRYPTION_KEY (stored tokens that no longer decrypt) and the provider's error
 * redirect to the callback (the user declined).
 */
let fake: FakeConfProvider;
let t: TestApp;

const VTT = [
  'WEBVTT',
  '',
  '00:00:01.000 --> 00:00:05.000',
  'Alice Host: The capstone is due on the last Friday of the term; submit it through the portal.',
].join('\n');

beforeAll(async () => {
  fake = await startFakeConfProvider();
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, ...fake.env } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

type Admin = Awaited<ReturnType<TestApp['signIn']>>;

/** The app over this file's database with another context (no second database clone). */
async function appWith(ctx: CoreContext) {
  const app = await buildApp({ ctx, logger: false });
  await app.ready();
  return app;
}
const withConfig = (config: Partial<Config>): CoreContext => ({ ...t.ctx, config: { ...t.ctx.config, ...config } });

async function startState(who: Admin): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/api/conf/auth/connect?redirect=false', headers: who.headers });
  expect(res.statusCode).toBe(200);
  return (res.json() as { state: string }).state;
}

async function connect(who: Admin, providerUser: string, app = t.app) {
  const state = await startState(who);
  const code = fake.issueCode(providerUser, fake.env.CONF_REDIRECT_URI as string);
  return app.inject({ method: 'GET', url: `/api/conf/auth/callback?code=${code}&state=${encodeURIComponent(state)}` });
}

/** A fresh admin connected to a fresh provider account. */
async function connectedAdmin(providerUser: string): Promise<Admin> {
  fake.users.set(providerUser, { id: providerUser, email: `${providerUser}@provider.test` });
  const admin = await t.signIn('admin');
  const res = await connect(admin, providerUser);
  expect(res.statusCode, res.body).toBe(200);
  return admin;
}

const row = async (id: string) => {
  const [u] = await t.ctx.db
    .select({
      connected: users.confConnected,
      confUserId: users.confUserId,
      access: users.confAccessToken,
      refresh: users.confRefreshToken,
      expiresAt: users.confTokenExpiresAt,
      lease: users.confRefreshLeaseUntil,
    })
    .from(users)
    .where(eq(users.id, id));
  return u;
};

/** The stored access token has run out, here and at the provider: the next use refreshes. */
async function expireTokens(userId: string) {
  fake.expireAccessTokens();
  await t.ctx.db
    .update(users)
    .set({ confTokenExpiresAt: new Date(Date.now() - 1000) })
    .where(eq(users.id, userId));
}

const meeting = async (uuid: string) => (await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, uuid)))[0];

describe('a wrong CONF_CLIENT_SECRET is a configuration error, not a refused grant', () => {
  it('the refresh refused with invalid_client keeps every token; the webhook job fails retryably naming the setting; fixed, it completes', async () => {
    const admin = await connectedAdmin('zm-wc-1');
    fake.addRecording({ uuid: 'wc-1', hostId: 'zm-wc-1', topic: 'Capstone', vtt: VTT });
    const payload = recordingPayloadOf(fake.recordingEvent('wc-1'), 'webhook');
    await expireTokens(admin.id);
    const before = await row(admin.id);
    const wrong = withConfig({ CONF_CLIENT_SECRET: 'not-the-secret' });

    await expect(confAccessToken(wrong, admin.id)).rejects.toThrow(/CONF_CLIENT_SECRET/);
    // The job fails (pg-boss retries it); the meeting waits, saying why.
    await expect(ingestRecording(wrong, payload, { jobId: 'job-wc-1', finalAttempt: false })).rejects.toThrow(/invalid_client/);
    expect(await meeting('wc-1')).toMatchObject({
      status: 'pending',
      error: expect.stringMatching(/^retrying after: .*CONF_CLIENT_SECRET/),
    });
    // The last attempt fails the meeting with the reason; an admin can re-process it.
    await expect(ingestRecording(wrong, payload, { jobId: 'job-wc-1', finalAttempt: true })).rejects.toThrow(/invalid_client/);
    expect(await meeting('wc-1')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/CONF_CLIENT_ID and CONF_CLIENT_SECRET/),
    });

    // Nothing was disconnected: the same tokens, the same provider account, the lease released.
    expect(await row(admin.id)).toEqual({ ...before, lease: null });
    const status = await t.app.inject({ method: 'GET', url: '/api/conf/token', headers: admin.headers });
    expect(status.json()).toMatchObject({ connected: true, confUserId: 'zm-wc-1' });

    // The backfill under the same misconfiguration says so (502 naming the configuration), not "not connected".
    const app = await appWith(wrong);
    try {
      const backfill = await app.inject({
        method: 'POST',
        url: '/api/conf/auth/backfill?fromDate=2026-01-01&toDate=2026-01-10',
        headers: admin.headers,
      });
      expect(expectProblem(backfill, 502, 'CONF_CLIENT_REJECTED').detail).toMatch(/CONF_CLIENT_SECRET/);
    } finally {
      await app.close();
    }
    expect((await row(admin.id))?.connected).toBe(true);

    // The secret fixed, the user's grant was good all along: the re-process downloads and completes.
    const reprocess = await t.app.inject({
      method: 'POST',
      url: `/api/conf/meetings/${(await meeting('wc-1'))?.id}/transcript`,
      headers: admin.headers,
    });
    expect(reprocess.statusCode).toBe(202);
    expect(await ingestRecording(t.ctx, payload, { jobId: 'job-wc-1' })).toMatchObject({ status: 'completed' });
  });

  it('the callback under a wrong secret is a 502 naming the configuration, not 400 OAUTH_CODE_REJECTED; a bad code still is', async () => {
    fake.users.set('zm-wc-2', { id: 'zm-wc-2', email: 'wc2@provider.test' });
    const admin = await t.signIn('admin');
    const app = await appWith(withConfig({ CONF_CLIENT_SECRET: 'not-the-secret' }));
    try {
      const res = await connect(admin, 'zm-wc-2', app);
      expect(expectProblem(res, 502, 'CONF_CLIENT_REJECTED').detail).toMatch(/CONF_CLIENT_ID and CONF_CLIENT_SECRET/);
    } finally {
      await app.close();
    }
    expect((await row(admin.id))?.connected).toBe(false);
    const state = await startState(admin);
    const bad = await t.app.inject({ method: 'GET', url: `/api/conf/auth/callback?code=made-up&state=${encodeURIComponent(state)}` });
    expect(expectProblem(bad, 400, 'OAUTH_CODE_REJECTED').detail).toMatch(/invalid_grant/);
  });
});

describe('a connection that ends frees the provider account', () => {
  it('a refresh refused with invalid_grant disconnects and clears the provider id: another admin connects that account', async () => {
    const first = await connectedAdmin('zm-ig-1');
    await expireTokens(first.id);
    // The grant revoked at the provider: the stored refresh token is one it does not know.
    await t.ctx.db
      .update(users)
      .set({ confRefreshToken: t.ctx.secrets.encrypt('revoked-refresh-token', first.id) })
      .where(eq(users.id, first.id));
    await expect(confAccessToken(t.ctx, first.id)).rejects.toMatchObject({ status: 422, code: 'CONF_NOT_CONNECTED' });
    expect(await row(first.id)).toMatchObject({ connected: false, confUserId: null, access: null, refresh: null });

    const second = await t.signIn('admin');
    const res = await connect(second, 'zm-ig-1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ connected: true, confUserId: 'zm-ig-1' });
  });

  it('a row left naming an account it is not connected to any more is taken over; a connected one is still 409', async () => {
    // As a disconnection made before this fix left it: not connected, no tokens, the provider id kept.
    const stale = await connectedAdmin('zm-ig-2');
    await t.ctx.db
      .update(users)
      .set({ confConnected: false, confAccessToken: null, confRefreshToken: null, confTokenExpiresAt: null })
      .where(eq(users.id, stale.id));
    const next = await t.signIn('admin');
    const res = await connect(next, 'zm-ig-2');
    expect(res.statusCode, res.body).toBe(200);
    expect((await row(stale.id))?.confUserId).toBeNull();
    expect((await row(next.id))?.confUserId).toBe('zm-ig-2');

    const third = await t.signIn('admin');
    expectProblem(await connect(third, 'zm-ig-2'), 409, 'CONF_ACCOUNT_IN_USE');
    expect(await row(next.id)).toMatchObject({ connected: true, confUserId: 'zm-ig-2' });
  });
});

describe('stored tokens that no longer decrypt (ENCRYPTION_KEY changed) count as not connected', () => {
  it('/conf/token says connected: false, backfill is 422 CONF_NOT_CONNECTED, a download fails the meeting saying why; connecting again works', async () => {
    const admin = await connectedAdmin('zm-key-1');
    fake.addRecording({ uuid: 'key-1', hostId: 'zm-key-1', topic: 'Capstone', vtt: VTT });
    const rotated: CoreContext = { ...t.ctx, secrets: new SecretBox('fedcba9876543210'.repeat(4)) };
    const app = await appWith(rotated);
    try {
      const status = await app.inject({ method: 'GET', url: '/api/conf/token', headers: admin.headers });
      expect(status.statusCode).toBe(200);
      expect(status.json()).toMatchObject({ connected: false, confConnected: false, confUserId: null });
      // Every other read says so too: the user views and the health's count of connected accounts.
      const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers });
      expect(me.json()).toMatchObject({ confConnected: false, confUserId: null, confConnectedAt: null });
      const listed = await app.inject({ method: 'GET', url: `/api/admin/users/${admin.id}`, headers: admin.headers });
      expect(listed.json()).toMatchObject({ confConnected: false });
      const health = await app.inject({ method: 'GET', url: '/api/conf/health', headers: admin.headers });
      expect(health.json()).toMatchObject({ connectedUsers: 0 });

      const backfill = await app.inject({
        method: 'POST',
        url: '/api/conf/auth/backfill?fromDate=2026-01-01&toDate=2026-01-10',
        headers: admin.headers,
      });
      expect(expectProblem(backfill, 422, 'CONF_NOT_CONNECTED').detail).toMatch(/ENCRYPTION_KEY.*connect the account again/);

      const result = await ingestRecording(rotated, recordingPayloadOf(fake.recordingEvent('key-1'), 'webhook'), { jobId: 'job-key-1' });
      expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(/ENCRYPTION_KEY/) });
      expect((await meeting('key-1'))?.error).toMatch(/do not decrypt with the current ENCRYPTION_KEY.*connect the account again/);

      // Connecting again stores tokens under the new key.
      const again = await connect(admin, 'zm-key-1', app);
      expect(again.statusCode, again.body).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/conf/token', headers: admin.headers })).json()).toMatchObject({
        connected: true,
      });
      expect((await app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers })).json()).toMatchObject({
        confConnected: true,
        confUserId: 'zm-key-1',
      });
    } finally {
      await app.close();
    }
  });
});

describe('the provider sends an error to the callback (RFC 6749 §4.1.2.1)', () => {
  it('error=access_denied with a valid state: 400 OAUTH_AUTHORIZATION_ERROR saying the user declined; the state is spent', async () => {
    const admin = await t.signIn('admin');
    const state = await startState(admin);
    const grants = fake.grants.authorization_code;
    const denied = await t.app.inject({
      method: 'GET',
      url: `/api/conf/auth/callback?error=access_denied&error_description=${encodeURIComponent('The user denied')}&state=${encodeURIComponent(state)}`,
    });
    const body = expectProblem(denied, 400, 'OAUTH_AUTHORIZATION_ERROR');
    expect(body.detail).toMatch(/declined .*access_denied: The user denied/);
    expect(denied.headers['cache-control']).toBe('no-store');
    const code = fake.issueCode('zm-wc-2', fake.env.CONF_REDIRECT_URI as string);
    const reuse = await t.app.inject({ method: 'GET', url: `/api/conf/callback?code=${code}&state=${encodeURIComponent(state)}` });
    expect(expectProblem(reuse, 400, 'INVALID_OAUTH_STATE').detail).toMatch(/already used/);
    expect(fake.grants.authorization_code).toBe(grants);

    const other = await startState(admin);
    const failed = await t.app.inject({ method: 'GET', url: `/api/conf/callback?error=server_error&state=${encodeURIComponent(other)}` });
    expect(expectProblem(failed, 400, 'OAUTH_AUTHORIZATION_ERROR').detail).toMatch(/returned server_error/);
    // A forged error with a tampered state is still the state's problem.
    expectProblem(
      await t.app.inject({ method: 'GET', url: `/api/conf/callback?error=access_denied&state=${encodeURIComponent(`${other}0`)}` }),
      400,
      'INVALID_OAUTH_STATE',
    );
  });

  it('neither code nor error is 400 VALIDATION_FAILED naming query.code, and the state stays usable', async () => {
    fake.users.set('zm-err-1', { id: 'zm-err-1', email: 'err1@provider.test' });
    const admin = await t.signIn('admin');
    const state = await startState(admin);
    const none = await t.app.inject({ method: 'GET', url: `/api/conf/auth/callback?state=${encodeURIComponent(state)}` });
    expect(expectProblem(none, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('query.code');
    const code = fake.issueCode('zm-err-1', fake.env.CONF_REDIRECT_URI as string);
    const ok = await t.app.inject({ method: 'GET', url: `/api/conf/auth/callback?code=${code}&state=${encodeURIComponent(state)}` });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
