import { randomUUID } from 'node:crypto';
import {
  Code,
  type Config,
  confAccessToken,
  ingestRecording,
  type JobQueue,
  type MemoryJobQueue,
  recordingPayloadOf,
  storableRecording,
  unavailable,
} from '@cfaq/core';
import { confMeetings, confOauthStates, faqs, transcriptKnowledge, users } from '@cfaq/db/schema/index';
import { type FakeConfProvider, signConfWebhook, startFakeConfProvider } from '@cfaq/testkit';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp, whileHeld } from './helpers.js';

const SECRET = 'whsec-test-secret';
let fake: FakeConfProvider;
let t: TestApp;
let admin: Awaited<ReturnType<TestApp['signIn']>>;

const VTT = [
  'WEBVTT',
  '',
  '1',
  '00:00:01.000 --> 00:00:05.000',
  'Alice Host: Welcome to the cohort onboarding session about the capstone deadline.',
  '',
  '2',
  '00:00:05.500 --> 00:00:09.000',
  'Bob Learner: When is the capstone project due and how do I submit it?',
  '',
  '3',
  '00:00:09.500 --> 00:00:15.000',
  'Alice Host: The capstone is due on the last Friday of the term; submit it through the portal.',
].join('\n');

beforeAll(async () => {
  fake = await startFakeConfProvider();
  fake.users.set('zm-alice', { id: 'zm-alice', email: 'alice@provider.test' });
  t = await createTestApp({
    env: { ...GENEROUS_LIMITS, ...fake.env, CONF_WEBHOOK_SECRET_TOKEN: SECRET, CONF_TOPIC_BLACKLIST: '^private,1:1' },
  });
  admin = await t.signIn('admin');
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const sent = () => (t.jobs as MemoryJobQueue).sent;

/** The app over this file's database with other settings (no second database clone). */
async function appWith(config: Partial<Config>, jobs?: JobQueue) {
  const app = await buildApp({ ctx: { ...t.ctx, config: { ...t.ctx.config, ...config }, ...(jobs ? { jobs } : {}) }, logger: false });
  await app.ready();
  return app;
}

async function connect(who: { id: string; headers: { authorization: string } }, providerUser = 'zm-alice') {
  const start = await t.app.inject({ method: 'GET', url: '/api/conf/auth/connect?redirect=false', headers: who.headers });
  expect(start.statusCode).toBe(200);
  const { state } = start.json() as { state: string };
  const code = fake.issueCode(providerUser, fake.env.CONF_REDIRECT_URI as string);
  return {
    state,
    code,
    res: await t.app.inject({
      method: 'GET',
      url: `/api/conf/auth/callback?code=${code}&state=${encodeURIComponent(state)}`,
      headers: who.headers,
    }),
  };
}

describe('OAuth connect', () => {
  it('connect redirects to the provider with a signed state; /conf/auth is the same route', async () => {
    for (const url of ['/api/conf/auth/connect', '/api/conf/auth']) {
      const res = await t.app.inject({ method: 'GET', url, headers: admin.headers });
      expect(res.statusCode).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(location.origin + location.pathname).toBe(`${fake.url}/oauth/authorize`);
      expect(location.searchParams.get('client_id')).toBe(fake.clientId);
      expect(location.searchParams.get('redirect_uri')).toBe(fake.env.CONF_REDIRECT_URI);
      expect(location.searchParams.get('state')).toMatch(/^[\w-]+\.[0-9a-f]{64}$/);
    }
  });

  it('the callback exchanges the code and stores both tokens encrypted; /conf/token shows the connection only', async () => {
    const { res } = await connect(admin);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ connected: true, confUserId: 'zm-alice', confEmail: 'alice@provider.test' });
    const [row] = await t.ctx.db.select().from(users).where(eq(users.id, admin.id));
    expect(row?.confConnected).toBe(true);
    expect(row?.confConnectedAt).toBeInstanceOf(Date);
    expect(row?.confAccessToken).toMatch(/^v1\./);
    expect(row?.confRefreshToken).toMatch(/^v1\./);
    // Bound to the row: the value does not decrypt as another row's.
    expect(() => t.ctx.secrets.decrypt(row?.confAccessToken as string, '00000000-0000-4000-8000-000000000000')).toThrow();
    const token = t.ctx.secrets.decrypt(row?.confAccessToken as string, admin.id);
    const status = await t.app.inject({ method: 'GET', url: '/api/conf/token', headers: admin.headers });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ connected: true, confConnected: true, confUserId: 'zm-alice' });
    expect(status.body).not.toContain(token);
    // The user's own view carries the spec's User conf fields, never a token.
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers });
    expect(me.json()).toMatchObject({ confConnected: true, confUserId: 'zm-alice', confConnectedAt: expect.any(String) });
    expect(me.body).not.toContain(token);
  });

  it('rejects a reused, tampered, expired or foreign state with 400', async () => {
    const { state, res } = await connect(admin);
    expect(res.statusCode).toBe(200);
    const code = fake.issueCode('zm-alice', fake.env.CONF_REDIRECT_URI as string);
    const reuse = await t.app.inject({
      method: 'GET',
      url: `/api/conf/callback?code=${code}&state=${encodeURIComponent(state)}`,
      headers: admin.headers,
    });
    expect(expectProblem(reuse, 400, 'INVALID_OAUTH_STATE').detail).toMatch(/already used/);

    const fresh = (await t.app.inject({ method: 'GET', url: '/api/conf/auth?redirect=false', headers: admin.headers })).json() as {
      state: string;
    };
    const tampered = `${fresh.state.slice(0, -1)}${fresh.state.endsWith('0') ? '1' : '0'}`;
    expectProblem(
      await t.app.inject({ method: 'GET', url: `/api/conf/callback?code=${code}&state=${tampered}`, headers: admin.headers }),
      400,
      'INVALID_OAUTH_STATE',
    );

    const other = await t.signIn('admin');
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/api/conf/callback?code=${code}&state=${fresh.state}`,
      headers: other.headers,
    });
    expect(expectProblem(foreign, 400, 'INVALID_OAUTH_STATE').detail).toMatch(/another user/);

    await t.ctx.db
      .update(confOauthStates)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(confOauthStates.nonce, fresh.state.split('.')[0] as string));
    const expired = await t.app.inject({
      method: 'GET',
      url: `/api/conf/callback?code=${code}&state=${fresh.state}`,
      headers: admin.headers,
    });
    expect(expectProblem(expired, 400, 'INVALID_OAUTH_STATE').detail).toMatch(/expired/);
    // The foreign attempt did not burn the owner's state before it expired, and nothing was exchanged.
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/api/conf/callback?code=x', headers: admin.headers }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('a callback that loses the state to a racing one is told it was already used, not that it expired', async () => {
    const start = await t.app.inject({ method: 'GET', url: '/api/conf/auth/connect?redirect=false', headers: admin.headers });
    const { state } = start.json() as { state: string };
    const nonce = state.split('.')[0] as string;
    // The racing callback: it has claimed the state (uncommitted) after this one read it.
    const code = fake.issueCode('zm-alice', fake.env.CONF_REDIRECT_URI as string);
    const losing = await whileHeld(t.ctx.pool, 'UPDATE conf_oauth_states SET used_at = now() WHERE nonce = $1', [nonce], () =>
      t.app.inject({
        method: 'GET',
        url: `/api/conf/auth/callback?code=${code}&state=${encodeURIComponent(state)}`,
        headers: admin.headers,
      }),
    );
    expect(expectProblem(losing, 400, 'INVALID_OAUTH_STATE').detail).toMatch(/already used/);
  });

  it("without CONF_REDIRECT_URI the browser lands on this API's callback with no token: the state names the admin", async () => {
    fake.users.set('zm-carol', { id: 'zm-carol', email: 'carol@provider.test' });
    const own = await appWith({ CONF_REDIRECT_URI: undefined });
    try {
      const carol = await t.signIn('admin');
      const start = await own.inject({ method: 'GET', url: '/api/conf/auth/connect', headers: carol.headers });
      expect(start.statusCode).toBe(302);
      const authorize = new URL(start.headers.location as string);
      expect(authorize.searchParams.get('redirect_uri')).toBe(`http://localhost:${t.ctx.config.PORT}/api/conf/auth/callback`);
      // The consent page sends the browser back: a plain navigation, no Authorization header.
      authorize.searchParams.set('login_as', 'zm-carol');
      const consent = await fetch(authorize, { redirect: 'manual' });
      expect(consent.status).toBe(302);
      const back = new URL(consent.headers.get('location') as string);
      expect(back.pathname).toBe('/api/conf/auth/callback');
      const res = await own.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toMatchObject({ connected: true, confUserId: 'zm-carol' });
      const [row] = await t.ctx.db.select().from(users).where(eq(users.id, carol.id));
      expect(row?.confConnected).toBe(true);
      expect(t.ctx.secrets.decrypt(row?.confRefreshToken as string, carol.id)).toBeTruthy();
      // Still single use, with or without a token.
      const again = await own.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
      expect(expectProblem(again, 400, 'INVALID_OAUTH_STATE').detail).toMatch(/already used/);
    } finally {
      await own.close();
    }
  });

  it('a flow started on one API process and finished on another exchanges the code with the redirect_uri it started with', async () => {
    fake.users.set('zm-fern', { id: 'zm-fern', email: 'fern@provider.test' });
    // Two processes without CONF_REDIRECT_URI: each one's default callback names its own port.
    const a = await appWith({ CONF_REDIRECT_URI: undefined, PORT: 4801 });
    const b = await appWith({ CONF_REDIRECT_URI: undefined, PORT: 4802 });
    try {
      const fern = await t.signIn('admin');
      const start = await a.inject({ method: 'GET', url: '/api/conf/auth/connect', headers: fern.headers });
      const authorize = new URL(start.headers.location as string);
      expect(authorize.searchParams.get('redirect_uri')).toBe('http://localhost:4801/api/conf/auth/callback');
      authorize.searchParams.set('login_as', 'zm-fern');
      const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location') as string);
      // The fake provider, as RFC 6749 4.1.3 requires, refuses a code exchanged with another redirect_uri.
      const res = await b.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ connected: true, confUserId: 'zm-fern' });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a token sent to the callback must be the state owner's; the owner's state survives a refused one", async () => {
    fake.users.set('zm-dave', { id: 'zm-dave', email: 'dave@provider.test' });
    const dave = await t.signIn('admin');
    const { state } = (
      await t.app.inject({ method: 'GET', url: '/api/conf/auth/connect?redirect=false', headers: dave.headers })
    ).json() as { state: string };
    const code = fake.issueCode('zm-dave', fake.env.CONF_REDIRECT_URI as string);
    const url = `/api/conf/callback?code=${code}&state=${encodeURIComponent(state)}`;
    const other = await t.signIn('admin');
    expect(expectProblem(await t.app.inject({ method: 'GET', url, headers: other.headers }), 400, 'INVALID_OAUTH_STATE').detail).toMatch(
      /another user/,
    );
    // A plain user's token is someone else's too.
    const plain = await t.signIn('user');
    expectProblem(await t.app.inject({ method: 'GET', url, headers: plain.headers }), 400, 'INVALID_OAUTH_STATE');
    const bad = await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer not-a-token' } });
    expectProblem(bad, 401, 'INVALID_TOKEN');
    expect(bad.headers['cache-control']).toBe('no-store');
    const grants = fake.grants.authorization_code;
    // The owner, signed in or not, completes it.
    const res = await t.app.inject({ method: 'GET', url, headers: dave.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ connected: true, confUserId: 'zm-dave' });
    expect(fake.grants.authorization_code).toBe(grants + 1);
  });

  it("the state's user must still be an active admin when the browser comes back", async () => {
    fake.users.set('zm-erin', { id: 'zm-erin', email: 'erin@provider.test' });
    const erin = await t.signIn('admin');
    const begin = async () => {
      const { state } = (
        await t.app.inject({ method: 'GET', url: '/api/conf/auth/connect?redirect=false', headers: erin.headers })
      ).json() as { state: string };
      const code = fake.issueCode('zm-erin', fake.env.CONF_REDIRECT_URI as string);
      return `/api/conf/auth/callback?code=${code}&state=${encodeURIComponent(state)}`;
    };
    const demoted = await begin();
    const suspended = await begin();
    const grants = fake.grants.authorization_code;
    await t.ctx.db.update(users).set({ role: 'moderator' }).where(eq(users.id, erin.id));
    expectProblem(await t.app.inject({ method: 'GET', url: demoted }), 403, 'FORBIDDEN');
    await t.ctx.db.update(users).set({ role: 'admin', status: 'suspended', suspendedAt: new Date() }).where(eq(users.id, erin.id));
    expectProblem(await t.app.inject({ method: 'GET', url: suspended }), 403, 'ACCOUNT_SUSPENDED');
    // With the admin's own (now suspended) token it is refused too.
    expectProblem(await t.app.inject({ method: 'GET', url: suspended, headers: erin.headers }), 401, 'INVALID_TOKEN');
    expect(fake.grants.authorization_code).toBe(grants);
    const [row] = await t.ctx.db.select({ connected: users.confConnected }).from(users).where(eq(users.id, erin.id));
    expect(row?.connected).toBe(false);
    // Active again: the state is still good.
    await t.ctx.db.update(users).set({ status: 'active', suspendedAt: null }).where(eq(users.id, erin.id));
    expect((await t.app.inject({ method: 'GET', url: suspended })).statusCode).toBe(200);
  });

  it('refresh is serialized per user: two callers at once make one refresh call; the rotated refresh token is stored', async () => {
    await t.ctx.db
      .update(users)
      .set({ confTokenExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(users.id, admin.id));
    const before = fake.grants.refresh_token;
    fake.setTokenDelay(150);
    const [a, b] = await Promise.all([confAccessToken(t.ctx, admin.id), confAccessToken(t.ctx, admin.id)]);
    fake.setTokenDelay(0);
    expect(fake.grants.refresh_token - before).toBe(1);
    expect(a).toBe(b);
    // The stored refresh token is the new one: a further forced refresh succeeds with it.
    const c = await confAccessToken(t.ctx, admin.id, a);
    expect(c).not.toBe(a);
    expect(fake.grants.refresh_token - before).toBe(2);
  });

  /** The admin's token expired, and the provider takes 400 ms to answer the refresh. */
  const slowRefreshAhead = async () => {
    await t.ctx.db
      .update(users)
      .set({ confTokenExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(users.id, admin.id));
    fake.setTokenDelay(400);
  };

  it('no transaction or row lock is held across the provider call (the embedded database would stall behind it)', async () => {
    await slowRefreshAhead();
    let refreshed = false;
    const refresh = confAccessToken(t.ctx, admin.id).then((token) => {
      refreshed = true;
      return token;
    });
    await new Promise((r) => setTimeout(r, 100));
    // A write to the same user row while the provider is answering: a row lock would make it wait for the refresh.
    await t.ctx.db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, admin.id));
    expect(refreshed).toBe(false);
    expect(await refresh).toBeTruthy();
    fake.setTokenDelay(0);
    const [row] = await t.ctx.db.select({ lease: users.confRefreshLeaseUntil }).from(users).where(eq(users.id, admin.id));
    expect(row?.lease).toBeNull();
  });

  it('a refresh stores its pair only over the refresh token it sent (another caller that stored first keeps theirs)', async () => {
    await slowRefreshAhead();
    const refresh = confAccessToken(t.ctx, admin.id);
    await new Promise((r) => setTimeout(r, 100));
    // Meanwhile a pair is stored by someone else (a holder whose lease had run out, say).
    const theirs = t.ctx.secrets.encrypt('their-refresh-token', admin.id);
    await t.ctx.db.update(users).set({ confRefreshToken: theirs }).where(eq(users.id, admin.id));
    expect(await refresh).toBeTruthy();
    fake.setTokenDelay(0);
    const [row] = await t.ctx.db
      .select({ refresh: users.confRefreshToken, lease: users.confRefreshLeaseUntil })
      .from(users)
      .where(eq(users.id, admin.id));
    expect(t.ctx.secrets.decrypt(row?.refresh as string, admin.id)).toBe('their-refresh-token');
    expect(row?.lease).toBeNull();
    // Put the account back on a pair the fake knows, for the tests after this one.
    await connect(admin);
  });
});

function webhook(body: unknown, opts: { secret?: string; ts?: number; headers?: Record<string, string> } = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return t.app.inject({
    method: 'POST',
    url: '/api/conf/webhook',
    payload: raw,
    headers: { ...signConfWebhook(opts.secret ?? SECRET, raw, opts.ts), ...opts.headers },
  });
}

describe('webhook', () => {
  it('answers url_validation only for a signed request', async () => {
    const body = { event: 'endpoint.url_validation', payload: { plainToken: 'abc123' }, event_ts: Date.now() };
    const ok = await webhook(body);
    expect(ok.statusCode).toBe(200);
    const { createHmac } = await import('node:crypto');
    expect(ok.json()).toEqual({ plainToken: 'abc123', encryptedToken: createHmac('sha256', SECRET).update('abc123').digest('hex') });
    expectProblem(await webhook(body, { secret: 'wrong' }), 401, 'INVALID_SIGNATURE');
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/conf/webhook', payload: body }), 401, 'INVALID_SIGNATURE');
  });

  it('verifies the raw bytes: a re-serialised body with the same JSON fails', async () => {
    const raw = '{"event":"meeting.started",  "payload":{}}';
    const headers = signConfWebhook(SECRET, raw);
    const res = await t.app.inject({ method: 'POST', url: '/api/conf/webhook', payload: JSON.stringify(JSON.parse(raw)), headers });
    expectProblem(res, 401, 'INVALID_SIGNATURE');
    const same = await t.app.inject({ method: 'POST', url: '/api/conf/webhook', payload: raw, headers });
    expect(same.json()).toEqual({ received: true, ignored: true });
  });

  it('refuses timestamps outside the 300 s window', async () => {
    const body = { event: 'meeting.started', payload: {} };
    expectProblem(await webhook(body, { ts: Math.floor(Date.now() / 1000) - 301 }), 401, 'INVALID_SIGNATURE');
    expectProblem(await webhook(body, { ts: Math.floor(Date.now() / 1000) + 301 }), 401, 'INVALID_SIGNATURE');
    expect((await webhook(body, { ts: Math.floor(Date.now() / 1000) - 290 })).statusCode).toBe(200);
  });

  it('queues recording.transcript_completed and recording.completed; a redelivery collapses on the job id', async () => {
    const rec = fake.addRecording({ uuid: 'wh-uuid-1==', hostId: 'zm-alice', topic: 'Webhook topic', vtt: VTT });
    const before = sent().length;
    const res = await webhook(fake.recordingEvent(rec.uuid));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect((await webhook(fake.recordingEvent(rec.uuid))).json()).toEqual({ received: true });
    expect((await webhook(fake.recordingEvent(rec.uuid, 'recording.completed'))).json()).toEqual({ received: true });
    const jobs = sent().slice(before);
    expect(jobs.map((j) => j.name)).toEqual(['conf.ingest-recording', 'conf.ingest-recording']);
    expect(jobs[0]?.payload).toMatchObject({
      meetingUuid: 'wh-uuid-1==',
      hostId: 'zm-alice',
      topic: 'Webhook topic',
      transcriptUrl: fake.transcriptUrl(rec.uuid),
    });
  });

  it('a signed recording event the service cannot use is acknowledged and ignored (a retry could never succeed); invalid JSON is 400', async () => {
    const before = sent().length;
    const res = await webhook({ event: 'recording.transcript_completed', payload: { object: { topic: 'x' } } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, ignored: true });
    expect(sent().length).toBe(before);
    expectProblem(await webhook('{not json'), 400, 'INVALID_JSON');
    // The admin's own recording-event route still names the field.
    const direct = await t.app.inject({
      method: 'POST',
      url: '/api/conf/recording-event',
      headers: admin.headers,
      payload: { event: 'recording.transcript_completed', payload: { object: { topic: 'x' } } },
    });
    expect(expectProblem(direct, 400).errors?.[0]?.path).toBe('body.payload.object.uuid');
  });

  it('answers 503 when the job cannot be stored, so the provider retries', async () => {
    const failing: JobQueue = { send: async () => Promise.reject(new Error('database down')) };
    const t2 = await appWith({}, failing);
    try {
      const rec = fake.addRecording({ uuid: 'wh-down', hostId: 'zm-alice', topic: 'x', vtt: VTT });
      const raw = JSON.stringify(fake.recordingEvent(rec.uuid));
      const res = await t2.inject({ method: 'POST', url: '/api/conf/webhook', payload: raw, headers: signConfWebhook(SECRET, raw) });
      expectProblem(res, 503, 'QUEUE_UNAVAILABLE');
    } finally {
      await t2.close();
    }
  });

  it('fails closed in production without a secret', async () => {
    const t2 = await appWith({ NODE_ENV: 'production', CONF_WEBHOOK_SECRET_TOKEN: undefined });
    try {
      const res = await t2.inject({ method: 'POST', url: '/api/conf/webhook', payload: { event: 'recording.completed', payload: {} } });
      // An anonymous caller is not told which setting is missing.
      expect(expectProblem(res, 503, 'WEBHOOK_NOT_CONFIGURED').detail).not.toMatch(/CONF_WEBHOOK_SECRET_TOKEN/);
    } finally {
      await t2.close();
    }
  });

  it('POST /conf/recording-event takes the same events with an admin token', async () => {
    const rec = fake.addRecording({ uuid: 'rec-event-1', hostId: 'zm-alice', topic: 'Manual replay', vtt: VTT });
    const before = sent().length;
    const replay = () =>
      t.app.inject({ method: 'POST', url: '/api/conf/recording-event', payload: fake.recordingEvent(rec.uuid), headers: admin.headers });
    const res = await replay();
    expect(res.json()).toEqual({ received: true });
    // A replay is queued each time (the first may have been skipped before its host connected), while the
    // provider's repeated deliveries share one job (the queue drops a fixed job id already sent).
    expect((await replay()).json()).toEqual({ received: true });
    expect(sent().slice(before)).toMatchObject([
      { name: 'conf.ingest-recording', payload: { meetingUuid: rec.uuid, replay: true } },
      { name: 'conf.ingest-recording', payload: { meetingUuid: rec.uuid, replay: true } },
    ]);
    const ignored = await t.app.inject({
      method: 'POST',
      url: '/api/conf/recording-event',
      payload: { event: 'meeting.ended' },
      headers: admin.headers,
    });
    expect(ignored.json()).toEqual({ received: true, ignored: true });
  });
});

describe('ingestion', () => {
  const payload = (uuid: string, topic = 'Capstone Q&A') => {
    if (!fake.recordings.some((r) => r.uuid === uuid)) fake.addRecording({ uuid, hostId: 'zm-alice', topic, vtt: VTT });
    return recordingPayloadOf(fake.recordingEvent(uuid), 'webhook');
  };

  it('a duration or start time past what the meeting columns hold is dropped, so the meeting is still made', async () => {
    const event = (object: Record<string, unknown>) => {
      const body = fake.recordingEvent('dur-1') as { payload: { object: Record<string, unknown> } };
      Object.assign(body.payload.object, object);
      return storableRecording(recordingPayloadOf(body, 'webhook'));
    };
    fake.addRecording({ uuid: 'dur-1', hostId: 'zm-alice', topic: 'Very long', vtt: VTT });
    expect(event({ duration: 90, start_time: '2026-11-27T17:00:00Z' })).toMatchObject({
      durationMinutes: 90,
      startTime: '2026-11-27T17:00:00Z',
    });
    const odd = event({ duration: 1e12, start_time: '-010000-01-01T00:00:00Z' });
    expect(odd.durationMinutes).toBeUndefined();
    expect(odd.startTime).toBeUndefined();
    expect(await ingestRecording(t.ctx, odd, { jobId: 'job-dur-1' })).toMatchObject({ status: 'completed' });
    // A job queued before the rule (its payload not cleaned) is cleaned when it runs.
    fake.addRecording({ uuid: 'dur-2', hostId: 'zm-alice', topic: 'Very long too', vtt: VTT });
    const raw = {
      ...recordingPayloadOf(fake.recordingEvent('dur-2'), 'webhook'),
      durationMinutes: 1e12,
      startTime: '+275760-01-01T00:00:00Z',
    };
    expect(await ingestRecording(t.ctx, raw, { jobId: 'job-dur-2' })).toMatchObject({ status: 'completed' });
  });

  it('downloads with the bearer token, parses, stores approved knowledge with an inline embedding and completes the meeting', async () => {
    const result = await ingestRecording(t.ctx, payload('ing-1'), { jobId: 'job-ing-1' });
    expect(result).toMatchObject({ status: 'completed', knowledgeCount: 1 });
    const dl = fake.requests.filter((r) => r.path.startsWith('/rec/download/ing-1'));
    expect(dl[0]?.authorization).toMatch(/^Bearer /);
    expect(dl[0]?.query.toString()).toBe('');
    const [m] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'ing-1'));
    expect(m).toMatchObject({ status: 'completed', sourcing: 'webhook', insightCount: 0, userId: admin.id, topic: 'Capstone Q&A' });
    expect(m?.transcriptText).toContain('Bob Learner: When is the capstone project due');
    const rows = await t.ctx.db
      .select()
      .from(transcriptKnowledge)
      .where(eq(transcriptKnowledge.meetingId, m?.id as string));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).toBe('approved');
    expect(rows[0]?.embedding).toHaveLength(768);
  });

  it('ten concurrent deliveries of one meeting make one meeting', async () => {
    const p = payload('ing-dup');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => ingestRecording(t.ctx, p, { jobId: `job-dup-${i}` })));
    expect(results.filter((r) => r.status === 'completed')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'skipped')).toHaveLength(9);
    const [n] = await t.ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(confMeetings)
      .where(eq(confMeetings.confMeetingId, 'ing-dup'));
    expect(n?.n).toBe(1);
  });

  it('a transient download failure throws for a retry: pending while retries remain, failed at the last; the retry completes it', async () => {
    fake.setDownloadBehaviour({ kind: 'status', status: 503 });
    const p = payload('ing-retry');
    await expect(ingestRecording(t.ctx, p, { jobId: 'job-retry', finalAttempt: false })).rejects.toThrow(/503/);
    const [waiting] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'ing-retry'));
    expect(waiting?.status).toBe('pending');
    expect(waiting?.error).toMatch(/^retrying after: .*503/);
    await expect(ingestRecording(t.ctx, p, { jobId: 'job-retry', finalAttempt: true })).rejects.toThrow(/503/);
    const [failed] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'ing-retry'));
    expect(failed?.status).toBe('failed');
    expect(failed?.error).toMatch(/503/);
    fake.setDownloadBehaviour({ kind: 'ok' });
    expect(await ingestRecording(t.ctx, p, { jobId: 'another-delivery' })).toMatchObject({ status: 'skipped' });
    expect(await ingestRecording(t.ctx, p, { jobId: 'job-retry' })).toMatchObject({ status: 'completed' });
    const rows = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'ing-retry'));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).toBe('completed');
  });

  it('skips blacklisted topics and hosts without a connected account', async () => {
    expect(await ingestRecording(t.ctx, payload('ing-bl', 'Private: 1:1 review'), { jobId: 'j' })).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/blacklist/),
    });
    const p = { ...payload('ing-nouser'), hostId: 'zm-nobody', hostEmail: 'nobody@x.test' };
    expect(await ingestRecording(t.ctx, p, { jobId: 'j' })).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/no user/) });
    const found = await t.ctx.db.select().from(confMeetings).where(sql`${confMeetings.confMeetingId} in ('ing-bl', 'ing-nouser')`);
    expect(found).toHaveLength(0);
  });

  it('logs every skip as a pipeline step: no connected host, no transcript file, a meeting that exists', async () => {
    const lines: string[] = [];
    const log = new Proxy({} as typeof t.ctx.log, {
      get: (_target, name) =>
        name === 'child' ? () => log : (_fields: unknown, message?: string) => lines.push(String(message ?? _fields)),
    });
    const ctx = { ...t.ctx, log };
    await ingestRecording(ctx, { ...payload('ing-log-nouser'), hostId: 'zm-nobody', hostEmail: 'nobody@x.test' }, { jobId: 'jl1' });
    await ingestRecording(ctx, { ...payload('ing-log-nofile'), transcriptUrl: undefined } as Parameters<typeof ingestRecording>[1], {
      jobId: 'jl2',
    });
    expect(await ingestRecording(t.ctx, payload('ing-log-dup'), { jobId: 'jl3' })).toMatchObject({ status: 'completed' });
    await ingestRecording(ctx, payload('ing-log-dup'), { jobId: 'jl4' });
    expect(lines).toEqual(
      expect.arrayContaining([
        '[pipeline] conf_ingest id=ing-log-nouser conf=- verdict=skipped_no_user',
        '[pipeline] conf_ingest id=ing-log-nofile conf=- verdict=skipped_no_transcript',
        expect.stringMatching(/^\[pipeline\] conf_ingest id=ing-log-dup conf=- verdict=skipped_duplicate meetingId=/),
      ]),
    );
  });

  it('finds the user by host email when the provider id is unknown', async () => {
    const p = { ...payload('ing-email'), hostId: 'zm-unknown', hostEmail: 'ALICE@provider.test' };
    expect(await ingestRecording(t.ctx, p, { jobId: 'j-email' })).toMatchObject({ status: 'completed' });
  });

  it("a host demoted or suspended after connecting is ignored like an unknown host: no meeting, no knowledge; reinstated, they're ingested again", async () => {
    fake.users.set('zm-pb', { id: 'zm-pb', email: 'pb@provider.test' });
    const pb = await t.signIn('admin');
    expect((await connect(pb, 'zm-pb')).res.statusCode).toBe(200);
    // A signed webhook delivery, then the job it queued, run as the worker runs it.
    const deliver = async (uuid: string, change: Record<string, string> = {}) => {
      fake.addRecording({ uuid, hostId: 'zm-pb', topic: 'Office hours', vtt: VTT });
      const before = sent().length;
      expect((await webhook(fake.recordingEvent(uuid))).json()).toEqual({ received: true });
      const [job] = sent().slice(before);
      const queued = job?.payload as Parameters<typeof ingestRecording>[1];
      return ingestRecording(t.ctx, { ...queued, ...change }, { jobId: `j-${uuid}` });
    };
    const notAdmin = { status: 'skipped', reason: expect.stringMatching(/no longer an active admin/) };

    const demote = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${pb.id}/role`,
      headers: admin.headers,
      payload: { role: 'user' },
    });
    expect(demote.statusCode, demote.body).toBe(200);
    expect(await deliver('pb-demoted')).toMatchObject(notAdmin);
    // Found by host email instead of provider id: the same rule.
    expect(await deliver('pb-demoted-email', { hostId: 'zm-unknown', hostEmail: 'PB@provider.test' })).toMatchObject(notAdmin);

    await t.ctx.db.update(users).set({ role: 'admin' }).where(eq(users.id, pb.id));
    const suspend = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/suspend',
      headers: admin.headers,
      payload: { userId: pb.id, reason: 'audit' },
    });
    expect(suspend.statusCode, suspend.body).toBe(200);
    expect(await deliver('pb-suspended')).toMatchObject(notAdmin);

    const ignored = ['pb-demoted', 'pb-demoted-email', 'pb-suspended'];
    const meetings = await t.ctx.db.select({ id: confMeetings.id }).from(confMeetings).where(inArray(confMeetings.confMeetingId, ignored));
    expect(meetings).toHaveLength(0);
    const knowledge = await t.ctx.db
      .select({ id: transcriptKnowledge.id })
      .from(transcriptKnowledge)
      .innerJoin(confMeetings, eq(confMeetings.id, transcriptKnowledge.meetingId))
      .where(eq(confMeetings.userId, pb.id));
    expect(knowledge).toHaveLength(0);

    const unsuspend = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/unsuspend',
      headers: admin.headers,
      payload: { userId: pb.id },
    });
    expect(unsuspend.statusCode, unsuspend.body).toBe(200);
    expect(await deliver('pb-back')).toMatchObject({ status: 'completed' });
    const [back] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'pb-back'));
    expect(back?.userId).toBe(pb.id);

    // A retry of a job whose first try left its meeting pending (a failed download), the host demoted
    // since: the meeting is failed, not pending for good, and may be re-processed.
    const [stuck] = await t.ctx.db
      .insert(confMeetings)
      .values({
        confMeetingId: 'pb-stuck',
        userId: pb.id,
        confUserId: 'zm-pb',
        topic: 'Office hours',
        status: 'pending',
        sourcing: 'webhook',
        payload: { event: 'recording.transcript_completed', jobId: 'j-pb-stuck', transcriptUrl: 'https://example.test/t.vtt' },
      })
      .returning({ id: confMeetings.id });
    await t.ctx.db.update(users).set({ role: 'user' }).where(eq(users.id, pb.id));
    const retried = await ingestRecording(
      t.ctx,
      {
        event: 'recording.transcript_completed',
        sourcing: 'webhook',
        meetingUuid: 'pb-stuck',
        hostId: 'zm-pb',
        topic: 'Office hours',
        transcriptUrl: 'https://example.test/t.vtt',
      },
      { jobId: 'j-pb-stuck' },
    );
    expect(retried).toMatchObject({ ...notAdmin, meetingId: stuck?.id });
    const [failed] = await t.ctx.db
      .select()
      .from(confMeetings)
      .where(eq(confMeetings.id, stuck?.id as string));
    expect(failed?.status).toBe('failed');
  });

  it.each([
    ['an HTML body', { kind: 'html' as const }, /HTML/],
    ['a body over the size cap', { kind: 'huge' as const, bytes: 2_000_000 }, /larger than/],
    ['a 404', { kind: 'status' as const, status: 404 }, /404/],
  ])('%s fails the meeting with its reason', async (_name, behaviour, reason) => {
    fake.setDownloadBehaviour(behaviour);
    try {
      const t2 = { ...t.ctx, config: { ...t.ctx.config, CONF_DOWNLOAD_MAX_BYTES: 1_048_576 } };
      const uuid = `ing-bad-${behaviour.kind}`;
      const result = await ingestRecording(t2, payload(uuid), { jobId: `j-${uuid}` });
      expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(reason) });
      const [m] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, uuid));
      expect(m?.status).toBe('failed');
    } finally {
      fake.setDownloadBehaviour({ kind: 'ok' });
    }
  });

  it('a download slower than the time cap fails and is retried', async () => {
    fake.setDownloadBehaviour({ kind: 'slow', ms: 1500 });
    try {
      const ctx = { ...t.ctx, config: { ...t.ctx.config, CONF_DOWNLOAD_TIMEOUT_MS: 1000 } };
      await expect(ingestRecording(ctx, payload('ing-slow'), { jobId: 'j-slow' })).rejects.toThrow(/longer than|abort|timeout/i);
    } finally {
      fake.setDownloadBehaviour({ kind: 'ok' });
    }
  });

  it('follows a same-origin redirect with the header and refuses a redirect to a host not allowed', async () => {
    fake.setDownloadBehaviour({ kind: 'redirect-same-origin' });
    expect(await ingestRecording(t.ctx, payload('ing-redir'), { jobId: 'j-redir' })).toMatchObject({ status: 'completed' });
    fake.setDownloadBehaviour({ kind: 'redirect-cross-origin', to: 'http://localhost:9' });
    const result = await ingestRecording(t.ctx, payload('ing-xredir'), { jobId: 'j-xredir' });
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(/not one of CONF_DOWNLOAD_HOSTS/) });
    fake.setDownloadBehaviour({ kind: 'ok' });
  });

  it('refuses a download URL of a host not allowed before any token refresh', async () => {
    // The owner's token has expired: a download would refresh it first.
    await t.ctx.db
      .update(users)
      .set({ confTokenExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(users.id, admin.id));
    const before = fake.grants.refresh_token;
    const result = await ingestRecording(
      t.ctx,
      { ...payload('ing-foreign'), transcriptUrl: 'https://transcripts.elsewhere.example/rec.vtt' },
      { jobId: 'j-foreign' },
    );
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(/not one of CONF_DOWNLOAD_HOSTS/) });
    expect(fake.grants.refresh_token).toBe(before);
  });

  it('sends no Authorization header across origins, even to an allowed host', async () => {
    const other = await startFakeConfProvider();
    try {
      other.addRecording({ uuid: 'xo', hostId: 'zm-alice', topic: 'x', vtt: VTT });
      const port = new URL(other.url).port;
      fake.setDownloadBehaviour({ kind: 'redirect-cross-origin', to: `http://localhost:${port}` });
      const ctx = { ...t.ctx, config: { ...t.ctx.config, CONF_DOWNLOAD_HOSTS: '127.0.0.1,localhost' } };
      const p = { ...payload('ing-xo'), transcriptUrl: fake.transcriptUrl('xo') };
      fake.addRecording({ uuid: 'xo', hostId: 'zm-alice', topic: 'x', vtt: VTT });
      await confAccessToken(t.ctx, admin.id); // a fresh token first (an earlier test let it expire)
      const refreshes = fake.grants.refresh_token;
      const result = await ingestRecording(ctx, p, { jobId: 'j-xo' });
      // The other origin got no token, so it refused (401) and the meeting failed, with no token refresh
      // (a new token would not be sent there either).
      expect(result.status).toBe('failed');
      expect(fake.grants.refresh_token).toBe(refreshes);
      const hit = other.requests.find((r) => r.path.startsWith('/rec/download/xo'));
      expect(hit).toBeDefined();
      expect(hit?.authorization).toBeUndefined();
    } finally {
      fake.setDownloadBehaviour({ kind: 'ok' });
      await other.close();
    }
  });

  it('an expired access token is refreshed once and the download retried', async () => {
    fake.expireAccessTokens();
    const before = fake.grants.refresh_token;
    expect(await ingestRecording(t.ctx, payload('ing-expired'), { jobId: 'j-exp' })).toMatchObject({ status: 'completed' });
    expect(fake.grants.refresh_token - before).toBe(1);
  });

  it('a transcript under 30 characters fails the meeting', async () => {
    fake.addRecording({ uuid: 'ing-short', hostId: 'zm-alice', topic: 'short', vtt: 'WEBVTT\n\n00:00.000 --> 00:01.000\nhi' });
    const result = await ingestRecording(t.ctx, recordingPayloadOf(fake.recordingEvent('ing-short'), 'webhook'), { jobId: 'j-short' });
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(/30 characters/) });
  });
});

function multipart(fields: Record<string, string>, file?: { name: string; content: string | Buffer }) {
  const boundary = '----cfaqtestboundary';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/vtt\r\n\r\n`,
      ),
    );
    parts.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('upload-transcript', () => {
  it('multipart VTT with source=manual_vtt creates a completed meeting and knowledge', async () => {
    const body = multipart({ source: 'manual_vtt' }, { name: 'Orientation week.vtt', content: VTT });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      payload: body.payload,
      headers: { ...admin.headers, ...body.headers },
    });
    expect(res.statusCode).toBe(201);
    const out = res.json() as { meetingId: string; confMeetingId: string; topic: string };
    expect(out).toMatchObject({ topic: 'Orientation week', status: 'completed', knowledgeCount: 1 });
    expect(out.confMeetingId).toMatch(/^manual-/);
    const meeting = await t.app.inject({ method: 'GET', url: `/api/conf/meetings/${out.meetingId}`, headers: admin.headers });
    expect(meeting.json()).toMatchObject({ sourcing: 'manual_vtt', status: 'completed', knowledgeCount: 1 });
  });

  it('a failure while storing fails the meeting with its reason: no meeting is left pending for good', async () => {
    vi.spyOn(t.ctx.embedder, 'embed').mockRejectedValueOnce(
      unavailable(Code.EMBEDDER_UNAVAILABLE, 'embedding model test is not available: connection refused'),
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      headers: admin.headers,
      payload: {
        rawText: 'Dana: The locker keys are handed out at the front desk on Mondays.',
        source: 'manual_raw',
        topic: 'Lockers down',
      },
    });
    expectProblem(res, 503, 'EMBEDDER_UNAVAILABLE');
    const [meeting] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.topic, 'Lockers down'));
    expect(meeting).toMatchObject({ status: 'failed', error: expect.stringContaining('store: embedding model test is not available') });
  });

  it('JSON {rawText, source: manual_raw}', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      headers: admin.headers,
      payload: { rawText: 'Dana: The stipend is paid on the first business day of each month.', source: 'manual_raw', topic: 'Stipends' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ topic: 'Stipends', status: 'completed' });
    // The program goes in the body or the form: `?batchId=` filed the meeting in the default program with a 201.
    const queried = await t.app.inject({
      method: 'POST',
      url: `/api/conf/upload-transcript?batchId=${randomUUID()}`,
      headers: admin.headers,
      payload: { rawText: 'Dana: The stipend is paid on the first business day of each month.', source: 'manual_raw', topic: 'Queried' },
    });
    expect(expectProblem(queried, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('query.batchId');
  });

  it('rejects bad input with 4xx naming the problem', async () => {
    const up = (payload: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/api/conf/upload-transcript',
        headers: { ...admin.headers, ...headers },
        payload: payload as string,
      });
    expect(expectProblem(await up({ rawText: 'x'.repeat(40), source: 'manual_vtt' }), 400).errors?.[0]?.path).toBe('body.source');
    expect(expectProblem(await up({ source: 'manual_raw' }), 400).errors?.[0]?.path).toBe('body.rawText');
    expectProblem(await up({ rawText: 'too short', source: 'manual_raw' }), 422, 'TRANSCRIPT_TOO_SHORT');
    const notVtt = multipart({ source: 'manual_vtt' }, { name: 'a.vtt', content: 'this is not a vtt file at all, really not' });
    expectProblem(await up(notVtt.payload, notVtt.headers), 400, 'INVALID_VTT');
    // A file in ISO-8859-1 ("café"): its bytes were stored as U+FFFD with a 201.
    const latin1 = multipart(
      { source: 'manual_vtt' },
      { name: 'l1.vtt', content: Buffer.from(VTT.replace('the', 'the caf\xe9'), 'latin1') },
    );
    expect(expectProblem(await up(latin1.payload, latin1.headers), 400).errors?.[0]?.path).toBe('body.file');
    const noFile = multipart({ source: 'manual_vtt' });
    expect(expectProblem(await up(noFile.payload, noFile.headers), 400).errors?.[0]?.path).toBe('body.file');
    const wrongSource = multipart({ source: 'manual_raw' }, { name: 'a.vtt', content: VTT });
    expect(expectProblem(await up(wrongSource.payload, wrongSource.headers), 400).errors?.[0]).toEqual({
      path: 'body.source',
      message: 'must be "manual_vtt"',
    });
    expectProblem(await up('plain text', { 'content-type': 'text/plain' }), 415);
    // Lengths count characters, as on every other route (an emoji is one), and no unknown form field passes.
    const raw = 'Dana: The stipend is paid on the first business day of each month.';
    expect((await up({ rawText: raw, source: 'manual_raw', topic: '😀'.repeat(300) })).statusCode).toBe(201);
    expect(expectProblem(await up({ rawText: raw, source: 'manual_raw', topic: '😀'.repeat(301) }), 400).errors?.[0]?.path).toBe(
      'body.topic',
    );
    const emojiTopic = multipart({ source: 'manual_vtt', topic: '😀'.repeat(300) }, { name: 'a.vtt', content: VTT });
    expect((await up(emojiTopic.payload, emojiTopic.headers)).statusCode).toBe(201);
    const unknown = multipart({ source: 'manual_vtt', foo: 'bar' }, { name: 'a.vtt', content: VTT });
    expect(expectProblem(await up(unknown.payload, unknown.headers), 400).errors?.[0]?.path).toBe('body.foo');
    // A body the multipart parser cannot read (it ends mid-part; no boundary) is the client's: 400, not 500.
    const cut = '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.vtt"\r\n\r\nhello';
    expectProblem(await up(cut, { 'content-type': 'multipart/form-data; boundary=xyz' }), 400, 'INVALID_BODY');
    expectProblem(await up(cut, { 'content-type': 'multipart/form-data' }), 400, 'INVALID_BODY');
    // Too many fields or a second file is a malformed form naming what is wrong, not a 413 (the body is small).
    const fields = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, 'x']));
    const many = multipart({ source: 'manual_vtt', ...fields }, { name: 'a.vtt', content: VTT });
    expect(expectProblem(await up(many.payload, many.headers), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('body');
    const one = multipart({ source: 'manual_vtt' }, { name: 'a.vtt', content: VTT });
    const boundary = '----cfaqtestboundary';
    const second = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.vtt"\r\nContent-Type: text/vtt\r\n\r\n${VTT}\r\n`,
    );
    const twoFiles = Buffer.concat([
      one.payload.subarray(0, one.payload.length - `--${boundary}--\r\n`.length),
      second,
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    expect(expectProblem(await up(twoFiles, one.headers), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('body.file');
    // A __proto__ form field is named, as in a JSON body.
    const proto = multipart(JSON.parse('{"source": "manual_vtt", "__proto__": "x"}'), { name: 'a.vtt', content: VTT });
    expect(expectProblem(await up(proto.payload, proto.headers), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('body.__proto__');
    // JSON that is not an object is a bad body (400 naming it), not the wrong media type.
    for (const json of ['null', '42', ''])
      expect(expectProblem(await up(json, { 'content-type': 'application/json' }), 400).errors?.[0]?.path, json).toBe('body');
  });

  it('a file over UPLOAD_LIMIT_BYTES is 413', async () => {
    const t2 = await appWith({ UPLOAD_LIMIT_BYTES: 2048 });
    try {
      const big = multipart(
        { source: 'manual_vtt' },
        { name: 'big.vtt', content: `${VTT}\n\n${'00:01:00.000 --> 00:01:01.000\nZ: words words\n\n'.repeat(200)}` },
      );
      const res = await t2.inject({
        method: 'POST',
        url: '/api/conf/upload-transcript',
        payload: big.payload,
        headers: { ...admin.headers, ...big.headers },
      });
      expectProblem(res, 413);
    } finally {
      await t2.close();
    }
  });
});

describe('meetings, insights, health, stats, backfill', () => {
  it('lists meetings with filters and re-processes one (409 while pending)', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/conf/meetings?status=completed&limit=100', headers: admin.headers });
    expect(list.statusCode).toBe(200);
    const page = list.json() as { items: { id: string; status: string }[]; total: number };
    expect(page.total).toBeGreaterThan(0);
    expect(page.items.every((m) => m.status === 'completed')).toBe(true);
    const id = page.items[0]?.id as string;
    const before = sent().length;
    const re = await t.app.inject({ method: 'POST', url: `/api/conf/meetings/${id}/transcript`, headers: admin.headers });
    expect(re.statusCode).toBe(202);
    expect(re.json()).toMatchObject({ id, status: 'pending' });
    expect(sent().slice(before)).toEqual([{ name: 'conf.process-meeting', payload: { meetingId: id } }]);
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/conf/meetings/${id}/transcript`, headers: admin.headers }), 409);
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/api/conf/meetings/00000000-0000-4000-8000-000000000000', headers: admin.headers }),
      404,
    );
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/conf/meetings?status=weird', headers: admin.headers }), 400);
  });

  it('insights: approve, edit, convert an approved one to a FAQ (once)', async () => {
    const [m] = await t.ctx.db.select({ id: confMeetings.id }).from(confMeetings).limit(1);
    const inserted = await t.ctx.db.execute(
      sql`insert into conf_insights (meeting_id, question, answer, speaker) values (${m?.id}, 'When is the capstone due?', 'The last Friday of the term.', 'Alice Host') returning id`,
    );
    const insightId = (inserted.rows[0] as { id: string }).id;
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/conf/insights/${insightId}/convert-to-faq`, headers: admin.headers, payload: {} }),
      422,
      'INSIGHT_NOT_APPROVED',
    );
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/conf/insights/${insightId}`,
      headers: admin.headers,
      payload: { status: 'approved', answer: 'On the last Friday of the term, through the portal.' },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      status: 'approved',
      reviewedBy: admin.id,
      answer: 'On the last Friday of the term, through the portal.',
    });
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/conf/insights/${insightId}`, headers: admin.headers, payload: {} }), 400);
    // Blank text is no question or answer (it sat in the review list and the audit's matching).
    for (const payload of [{ question: '   ' }, { answer: ' \u200b ' }]) {
      const blank = await t.app.inject({ method: 'PUT', url: `/api/conf/insights/${insightId}`, headers: admin.headers, payload });
      expect(expectProblem(blank, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe(`body.${Object.keys(payload)[0]}`);
    }
    const conv = await t.app.inject({ method: 'POST', url: `/api/conf/insights/${insightId}/convert-to-faq`, headers: admin.headers });
    expect(conv.body).toContain('faq');
    expect(conv.statusCode).toBe(201);
    const faq = (conv.json() as { faq: { id: string; source: string; reviewStatus: string } }).faq;
    expect(faq).toMatchObject({ source: 'conf_insight', reviewStatus: 'approved' });
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, faq.id));
    expect(row?.sourceId).toBe(insightId);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/conf/insights/${insightId}/convert-to-faq`, headers: admin.headers }),
      409,
    );
    const list = await t.app.inject({ method: 'GET', url: '/api/conf/insights?status=approved', headers: admin.headers });
    expect((list.json() as { items: { id: string }[] }).items.map((i) => i.id)).toContain(insightId);
  });

  it('health and public stats', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/api/conf/health', headers: admin.headers });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({
      configured: true,
      webhookSecretConfigured: true,
      connection: { connected: true },
      queueDepth: null,
    });
    expect((health.json() as { lastMeetingAt: string | null }).lastMeetingAt).not.toBeNull();
    const stats = await t.app.inject({ method: 'GET', url: '/api/conf/public-stats' });
    expect(stats.statusCode).toBe(200);
    const s = stats.json() as { meetingsProcessed: number; knowledgeItems: number; insightsApproved: number };
    expect(s.meetingsProcessed).toBeGreaterThan(0);
    expect(s.knowledgeItems).toBeGreaterThan(0);
    expect(Object.keys(s).sort()).toEqual(['insightsApproved', 'knowledgeItems', 'lastProcessedAt', 'meetingsProcessed']);
    // A public read of one program: another program's counts are its own (none here), an unknown one is 404.
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/batches',
      headers: admin.headers,
      payload: { name: 'No meetings here' },
    });
    const empty = await t.app.inject({ method: 'GET', url: `/api/conf/public-stats?batchId=${other.json().id}` });
    expect(empty.json()).toMatchObject({ meetingsProcessed: 0, insightsApproved: 0, knowledgeItems: 0, lastProcessedAt: null });
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/api/conf/public-stats?batchId=00000000-0000-4000-8000-000000000000' }),
      404,
      'PROGRAM_NOT_FOUND',
    );
  });

  it('backfill lists recordings month by month and queues those with transcripts', async () => {
    fake.addRecording({ uuid: 'bf-1', hostId: 'zm-alice', topic: 'Old session', startTime: '2026-01-10T10:00:00Z', vtt: VTT });
    // Its duration past the meeting column's integer is dropped (it failed the whole backfill: 500).
    fake.addRecording({
      uuid: 'bf-2',
      hostId: 'zm-alice',
      topic: 'Older session',
      startTime: '2025-12-01T10:00:00Z',
      duration: 3_000_000_000,
      vtt: VTT,
    });
    fake.addRecording({ uuid: 'bf-novtt', hostId: 'zm-alice', topic: 'No transcript', startTime: '2026-01-05T10:00:00Z' });
    const before = sent().length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conf/auth/backfill?fromDate=2025-11-20&toDate=2026-01-31',
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ recordings: 3, withTranscript: 2, queued: 2 });
    expect(
      sent()
        .slice(before)
        .map((j) => (j.payload as { meetingUuid: string }).meetingUuid)
        .sort(),
    ).toEqual(['bf-1', 'bf-2']);
    const calls = fake.requests.filter((r) => r.path === '/v2/users/me/recordings').slice(-3);
    expect(calls.map((c) => `${c.query.get('from')}..${c.query.get('to')}`)).toEqual([
      '2025-11-20..2025-12-19',
      '2025-12-20..2026-01-18',
      '2026-01-19..2026-01-31',
    ]);
    for (const [q, path] of [
      ['fromDate=2026-02-30&toDate=2026-03-01', 'query.fromDate'],
      ['fromDate=2026-01-10&toDate=2026-01-01', 'query.toDate'],
      ['fromDate=2025-01-01&toDate=2026-01-01', 'query.toDate'],
      ['fromDate=yesterday&toDate=2026-01-01', 'query.fromDate'],
    ] as const) {
      const bad = await t.app.inject({ method: 'POST', url: `/api/conf/auth/backfill?${q}`, headers: admin.headers });
      expect(expectProblem(bad, 400).errors?.[0]?.path).toBe(path);
    }
    const other = await t.signIn('admin');
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/api/conf/auth/backfill?fromDate=2026-01-01&toDate=2026-01-02', headers: other.headers }),
      422,
      'CONF_NOT_CONNECTED',
    );
    // Without the app's credentials the integration is off: 422 as connect says, not a provider call that fails.
    const off = await appWith({ CONF_CLIENT_ID: undefined, CONF_CLIENT_SECRET: undefined });
    try {
      expectProblem(
        await off.inject({ method: 'POST', url: '/api/conf/auth/backfill?fromDate=2026-01-01&toDate=2026-01-02', headers: admin.headers }),
        422,
        'CONF_NOT_CONFIGURED',
      );
    } finally {
      await off.close();
    }
  });
});

describe('convert-to-faq keeps to the FAQ rules', () => {
  it('a blank, too short or too long question or a blank answer is 400 naming the field; an insight question that breaks them is 422', async () => {
    const [m] = await t.ctx.db.select({ id: confMeetings.id }).from(confMeetings).limit(1);
    const insight = async (question: string) =>
      (
        (
          await t.ctx.db.execute(
            sql`insert into conf_insights (meeting_id, question, answer, speaker, status) values (${m?.id}, ${question}, 'Room 4, after the break.', 'Alice Host', 'approved') returning id`,
          )
        ).rows[0] as { id: string }
      ).id;
    const convert = (id: string, payload: object) =>
      t.app.inject({ method: 'POST', url: `/api/conf/insights/${id}/convert-to-faq`, headers: admin.headers, payload });
    const id = await insight('Room?');
    for (const [payload, path] of [
      [{ question: '     ', faqId: null }, 'body.question'],
      [{ question: 'Room', faqId: null }, 'body.question'],
      [{ question: `${'Which room '.repeat(50)}?`, faqId: null }, 'body.question'],
      [{ question: 'Where is the workshop held?', answer: '   ', faqId: null }, 'body.answer'],
    ] as const) {
      expect(expectProblem(await convert(id, payload), 400).errors?.[0]?.path).toBe(path);
    }
    // "Room?" has 5 characters: a question, if a short one. One of 3 is not, nor is one of 600.
    for (const question of ['Rm?', 'Which room is it in? '.repeat(30)]) {
      const bad = expectProblem(await convert(await insight(question), { faqId: null }), 422, 'FAQ_TEXT_INVALID');
      expect(bad.errors?.[0]?.path).toBe('body.question');
    }
    const ok = await convert(id, { question: 'Where is the workshop held?', faqId: null });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ action: 'created', faq: { question: 'Where is the workshop held?' } });
  });
});

describe('insight edits racing', () => {
  it('an answer edit that waited for a question edit keeps the proposal of the new question, not of the old one', async () => {
    // Imported here: this block only adds to the file.
    const { embedRow } = await import('@cfaq/core');
    const OLD_Q = 'Where do I collect the locker keys each Monday?';
    const NEW_Q = 'Is the rooftop garden open to students on Sundays?';
    const faq = await t.app.inject({
      method: 'POST',
      url: '/api/faq',
      headers: admin.headers,
      payload: { question: OLD_Q, answer: 'At the front desk, from 9 am.' },
    });
    expect(faq.statusCode, faq.body).toBe(201);
    const faqId = (faq.json() as { id: string }).id;
    await embedRow(t.ctx, { table: 'faqs', id: faqId });
    const program = (await t.ctx.pool.query<{ id: string }>('SELECT id FROM batches WHERE is_default')).rows[0]?.id;
    const meeting = (
      await t.ctx.pool.query<{ id: string }>(
        `INSERT INTO conf_meetings (conf_meeting_id, topic, sourcing, batch_id, status) VALUES ('race-insight-edit', 'Race', 'manual_raw', $1, 'completed') RETURNING id`,
        [program],
      )
    ).rows[0]?.id;
    const insightId = (
      await t.ctx.pool.query<{ id: string }>(
        `INSERT INTO conf_insights (meeting_id, batch_id, question, answer) VALUES ($1, $2, $3, 'At the desk.') RETURNING id`,
        [meeting, program, OLD_Q],
      )
    ).rows[0]?.id as string;
    const edit = (payload: object) =>
      t.app.inject({ method: 'PUT', url: `/api/conf/insights/${insightId}`, headers: admin.headers, payload });
    // Alone, an answer edit proposes the FAQ its question asks.
    const alone = await edit({ answer: 'At the front desk.' });
    expect(alone.statusCode, alone.body).toBe(200);
    expect(alone.json()).toMatchObject({ question: OLD_Q, proposedFaqId: faqId });

    // A question edit holds the row (uncommitted, with the proposal of its question: none) while an
    // answer edit, which read the old question, comes in and waits for it.
    const other = await t.ctx.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('UPDATE conf_insights SET question = $2, proposed_faq_id = NULL, proposed_faq_score = NULL WHERE id = $1', [
        insightId,
        NEW_Q,
      ]);
      const answered = edit({ answer: 'At the front desk, from 9 am.' });
      let waiting = false;
      for (let i = 0; i < 1000 && !waiting; i += 1) {
        const { rows } = await t.ctx.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%conf_insights%'`,
        );
        waiting = Number(rows[0]?.n) > 0;
        if (!waiting) await new Promise((r) => setTimeout(r, 10));
      }
      await other.query('COMMIT');
      expect(waiting).toBe(true);
      const res = await answered;
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        question: NEW_Q,
        answer: 'At the front desk, from 9 am.',
        proposedFaqId: null,
        proposedFaqScore: null,
      });
    } finally {
      other.release();
    }
    const [row] = (await t.ctx.pool.query('SELECT question, answer, proposed_faq_id FROM conf_insights WHERE id = $1', [insightId]))
      .rows as { question: string; proposed_faq_id: string | null }[];
    expect(row).toMatchObject({ question: NEW_Q, proposed_faq_id: null });
  });
});

describe('upload-transcript: a form names the field it has too many of', () => {
  /** A multipart body of the given parts, in order: text fields, and files (`filename` set). */
  const form = (parts: { name: string; value: string; filename?: string }[]) => {
    const boundary = '----cfaqtestboundary2';
    const body = parts
      .map(
        (p) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"\r\nContent-Type: text/vtt` : ''}\r\n\r\n${p.value}\r\n`,
      )
      .join('');
    return {
      payload: Buffer.from(`${body}--${boundary}--\r\n`),
      headers: { ...admin.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    };
  };
  const upload = (parts: Parameters<typeof form>[0]) =>
    t.app.inject({ method: 'POST', url: '/api/conf/upload-transcript', ...form(parts) });
  const meetings = async (topic: string) => (await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.topic, topic))).length;

  it('an extra file field next to file is 400 naming that field', async () => {
    const res = await upload([
      { name: 'source', value: 'manual_vtt' },
      { name: 'topic', value: 'Extra file' },
      { name: 'file', value: VTT, filename: 't.vtt' },
      { name: 'other', value: VTT, filename: 't.vtt' },
    ]);
    expect(expectProblem(res, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('body.other');
    expect(await meetings('Extra file')).toBe(0);
  });

  it('a second or third file in the field file is 400 naming body.file, "one file only"', async () => {
    for (const n of [2, 3]) {
      const files = Array.from({ length: n }, (_, i) => ({ name: 'file', value: VTT, filename: `t${i}.vtt` }));
      const res = await upload([{ name: 'source', value: 'manual_vtt' }, { name: 'topic', value: 'Two files' }, ...files]);
      expect(expectProblem(res, 400, 'VALIDATION_FAILED').errors?.[0], `${n} files`).toEqual({
        path: 'body.file',
        message: 'one file only, in the field file',
      });
    }
    expect(await meetings('Two files')).toBe(0);
  });

  it('a text field sent twice is 400 naming it, not resolved silently', async () => {
    for (const [name, first, second] of [
      ['source', 'manual_vtt', 'manual_vtt'],
      ['topic', 'Twice A', 'Twice B'],
    ] as const) {
      const res = await upload([
        ...(name === 'source' ? [] : [{ name: 'source', value: 'manual_vtt' }]),
        { name, value: first },
        { name, value: second },
        { name: 'file', value: VTT, filename: 't.vtt' },
      ]);
      expect(expectProblem(res, 400, 'VALIDATION_FAILED').errors?.[0]?.path, name).toBe(`body.${name}`);
    }
    expect(await meetings('Twice B')).toBe(0);
    // Each field once still uploads.
    const ok = await upload([
      { name: 'source', value: 'manual_vtt' },
      { name: 'topic', value: 'Once' },
      { name: 'file', value: VTT, filename: 't.vtt' },
    ]);
    expect(ok.statusCode).toBe(201);
  });
});
