import {
  cloneDatabase,
  type FakeConfProvider,
  type Spawned,
  signConfWebhook,
  spawnEntry,
  startFakeConfProvider,
  TEST_ENV,
} from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * Issue 17's whole path with nothing inside the service mocked: the API and the worker run as their
 * own processes (the npm entry files) on one PostgreSQL database, the meeting provider is the fake in
 * packages/testkit speaking its protocol over HTTP. An admin connects an account (OAuth code grant),
 * the provider sends a signed webhook, the worker's pg-boss job downloads and ingests the transcript,
 * and POST /search, anonymous, finds the transcript's knowledge row.
 */
const SECRET = 'e2e-webhook-secret';
const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;
const VTT = [
  'WEBVTT',
  '',
  '1',
  '00:00:01.000 --> 00:00:06.000',
  'Dana Host: Quick reminder about the observatory: the telescope dome opens at nine on clear nights.',
  '',
  '2',
  '00:00:06.500 --> 00:00:11.000',
  'Eli Learner: Do we need to book the telescope in advance?',
  '',
  '3',
  '00:00:11.500 --> 00:00:17.000',
  'Dana Host: Yes, book the telescope through the astronomy club sheet a day before.',
].join('\n');

let db: { url: string; drop: () => Promise<void> };
let fake: FakeConfProvider;
let api: Spawned;
let worker: Spawned;
let base: string;
let token: string;

async function call(method: string, path: string, opts: { body?: string; headers?: Record<string, string>; auth?: boolean } = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth !== false) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

beforeAll(async () => {
  fake = await startFakeConfProvider();
  fake.users.set('zm-dana', { id: 'zm-dana', email: 'dana@provider.test' });
  db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
  const env = {
    ...TEST_ENV,
    ...fake.env,
    CONF_WEBHOOK_SECRET_TOKEN: SECRET,
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    PORT: '0',
    HOST: '127.0.0.1',
  };
  api = spawnEntry('apps/api/src/main.ts', { ...env, MIGRATE_ON_START: 'true' });
  const [, port] = await api.waitFor(listening, 170_000);
  base = `http://127.0.0.1:${port}/api`;
  worker = spawnEntry('apps/worker/src/main.ts', { ...env, MIGRATE_ON_START: 'false' });
  await worker.waitFor(/worker started/, 170_000);
  const login = await call('POST', '/auth/login', {
    auth: false,
    body: JSON.stringify({ email: TEST_ENV.ADMIN_EMAIL, password: TEST_ENV.ADMIN_PASSWORD }),
  });
  expect(login.status).toBe(200);
  token = login.body.accessToken as string;
}, 360_000);

afterAll(async () => {
  for (const p of [worker, api]) {
    if (!p) continue;
    await p.stop('SIGTERM');
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
  await fake?.close();
  await db?.drop();
});

describe('meeting transcripts end to end (API and worker processes, fake provider)', () => {
  it('connect -> signed webhook -> worker ingestion -> POST /search finds the knowledge row', async () => {
    // 1. Connect: the signed state from the API, the provider's code, the callback exchanging it.
    const start = await call('GET', '/conf/auth/connect?redirect=false');
    expect(start.status).toBe(200);
    const code = fake.issueCode('zm-dana', fake.env.CONF_REDIRECT_URI as string);
    const callback = await call('GET', `/conf/auth/callback?code=${code}&state=${encodeURIComponent(start.body.state as string)}`);
    expect(callback.status, JSON.stringify(callback.body)).toBe(200);
    expect(callback.body).toMatchObject({ connected: true, confUserId: 'zm-dana' });
    expect(fake.requests.some((r) => r.path === '/oauth/token')).toBe(true);

    // Not there yet, and that answer is now in the API's result cache.
    const query = 'when does the telescope dome open';
    const before = await call('POST', '/search', { auth: false, body: JSON.stringify({ query }) });
    expect(before.status).toBe(200);
    expect((before.body.results as { source: string }[]).filter((r) => r.source === 'transcript_knowledge')).toEqual([]);

    // 2. The provider's signed webhook: acknowledged once the job is committed.
    fake.addRecording({ uuid: 'e2e-observatory', hostId: 'zm-dana', topic: 'Observatory night', vtt: VTT });
    const raw = JSON.stringify(fake.recordingEvent('e2e-observatory'));
    const hook = await call('POST', '/conf/webhook', { auth: false, body: raw, headers: signConfWebhook(SECRET, raw) });
    expect(hook).toEqual({ status: 200, body: { received: true } });

    // 3. The worker process ingests it (downloading with the connected user's token).
    const deadline = Date.now() + 60_000;
    let meeting: { id: string; status: string; insightCount: number } | undefined;
    while (Date.now() < deadline) {
      const list = await call('GET', '/conf/meetings');
      meeting = (list.body.items as (typeof meeting)[]).find((m) => m?.status === 'completed' || m?.status === 'failed');
      if (meeting) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(meeting?.status, worker.output().slice(-2000)).toBe('completed');
    const download = fake.requests.find((r) => r.path.startsWith('/rec/download/'));
    expect(download?.authorization).toMatch(/^Bearer /);

    // 4. POST /search (anonymous, the default program) finds the transcript's knowledge row: the
    // worker's write moved the search cache generation, so the cached empty answer is not served.
    const after = await call('POST', '/search', { auth: false, body: JSON.stringify({ query }) });
    expect(after.status).toBe(200);
    const top = (after.body.results as { source: string; title: string; snippet: string }[])[0];
    expect(top).toMatchObject({ source: 'transcript_knowledge', title: 'Observatory night' });
    expect(top?.snippet).toContain('telescope dome opens at nine');
    const knowledge = await call('GET', `/knowledge?meetingId=${meeting?.id}`);
    expect((knowledge.body.items as { status: string; embedded: boolean }[])[0]).toMatchObject({ status: 'approved', embedded: true });
  });
});
