import { BossJobQueue, type CoreContext, confIngestJob, handleConfWebhook } from '@cfaq/core';
import { confInsights, confMeetings, transcriptKnowledge, users } from '@cfaq/db/schema/index';
import {
  createTestContext,
  type FakeConfProvider,
  type Spawned,
  signConfWebhook,
  spawnEntry,
  startFakeConfProvider,
  startTestBoss,
  TEST_ENV,
  type TestContext,
} from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * kill -9 of a worker process in the middle of an ingestion job (its transcript download hanging at
 * the fake provider): a second worker process retries the job, once the killed worker's heartbeat is
 * stale, and completes exactly one meeting with one set of knowledge rows. Without the ingestion
 * job's heartbeat the killed job would stay active until its 10-minute expiry and this test would
 * time out. Both workers are the real entry file (apps/worker/src/main.ts) on this file's database;
 * the test process only sends the webhook (core's handler, as the route does) and never works jobs.
 */
const SECRET = 'kill-webhook-secret';
const UUID = 'kill-9-meeting';
const VTT = [
  'WEBVTT',
  '',
  '00:00:01.000 --> 00:00:05.000',
  'Kim Host: The makerspace laser cutter needs a safety sign-off before your first booking.',
  '',
  '00:00:05.500 --> 00:00:09.000',
  'Lee Learner: Where do I get the sign-off?',
  '',
  '00:00:09.500 --> 00:00:14.000',
  'Kim Host: At the front desk, any weekday afternoon; it takes about twenty minutes.',
].join('\n');

let t: TestContext;
let boss: PgBoss;
let ctx: CoreContext;
let fake: FakeConfProvider;
let env: Record<string, string>;
const workers: Spawned[] = [];

const startWorker = async () => {
  const w = spawnEntry('apps/worker/src/main.ts', env);
  workers.push(w);
  await w.waitFor(/worker started/, 120_000);
  return w;
};

beforeAll(async () => {
  fake = await startFakeConfProvider();
  fake.users.set('zm-kim', { id: 'zm-kim', email: 'kim@provider.test' });
  t = await createTestContext({ env: { ...fake.env, CONF_WEBHOOK_SECRET_TOKEN: SECRET } });
  env = {
    ...TEST_ENV,
    ...fake.env,
    CONF_WEBHOOK_SECRET_TOKEN: SECRET,
    DATABASE_URL: t.url,
    LOG_LEVEL: 'info',
    // The path under test is the retry, not the embedding: the fast embedder keeps the file short.
    EMBEDDER: 'local',
    // Supervision every second and a 1 s retry delay, so the retry follows the heartbeat's 10 s at once.
    JOB_SUPERVISE_INTERVAL_SECONDS: '1',
    CONF_INGEST_RETRY_DELAY_SECONDS: '1',
  };
  // A connected user with the tokens the OAuth callback would have stored.
  const code = fake.issueCode('zm-kim', 'http://cb.test');
  const tokens = (await (
    await fetch(`${fake.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://cb.test' }),
    })
  ).json()) as { access_token: string; refresh_token: string };
  const [u] = await t.ctx.db
    .insert(users)
    .values({ email: 'kim@local.test', name: 'Kim', passwordHash: 'x', role: 'admin', confConnected: true, confUserId: 'zm-kim' })
    .returning({ id: users.id });
  const userId = u?.id as string;
  await t.ctx.db
    .update(users)
    .set({
      confAccessToken: t.ctx.secrets.encrypt(tokens.access_token, userId),
      confRefreshToken: t.ctx.secrets.encrypt(tokens.refresh_token, userId),
      confTokenExpiresAt: new Date(Date.now() + 3_600_000),
    })
    .where(eq(users.id, userId));
  // A producer only: no supervision, no work (the queues are the workers' own, created with their settings).
  boss = await startTestBoss(t.url);
  ctx = { ...t.ctx, jobs: new BossJobQueue(boss) };
}, 60_000);

afterAll(async () => {
  for (const w of workers) {
    if (w.child.exitCode === null) await w.stop('SIGKILL');
  }
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
  await fake?.close();
});

const jobRow = async () =>
  (
    await t.ctx.pool.query<{ id: string; state: string; retry_count: number }>(
      `SELECT id, state, retry_count FROM pgboss.job WHERE name = $1 AND data->>'meetingUuid' = $2`,
      [confIngestJob.name, UUID],
    )
  ).rows;

describe('conf ingestion after kill -9 of the worker mid-job', () => {
  it('a second worker retries the job and completes exactly one meeting, with one set of rows', async () => {
    const first = await startWorker();

    // The webhook's job, picked up by the first worker, whose transcript download then hangs.
    fake.setDownloadBehaviour({ kind: 'hang' });
    fake.addRecording({ uuid: UUID, hostId: 'zm-kim', topic: 'Makerspace sign-off', vtt: VTT });
    const downloading = fake.nextRequest('/rec/download/');
    const raw = Buffer.from(JSON.stringify(fake.recordingEvent(UUID)));
    const headers = signConfWebhook(SECRET, raw.toString());
    expect(
      await handleConfWebhook(ctx, { rawBody: raw, signature: headers['x-zm-signature'], timestamp: headers['x-zm-request-timestamp'] }),
    ).toEqual({ received: true });
    await downloading;

    // Mid-job: the meeting exists, pending; the job is active on the first worker.
    const pending = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, UUID));
    expect(pending.map((m) => m.status)).toEqual(['pending']);
    expect((await jobRow()).map((j) => [j.state, j.retry_count])).toEqual([['active', 0]]);

    const killed = await first.stop('SIGKILL');
    expect(killed.code).toBeNull();
    expect(first.child.signalCode).toBe('SIGKILL');
    fake.setDownloadBehaviour({ kind: 'ok' });

    // The second worker: the heartbeat of the killed job goes stale, its supervision fails the job,
    // and the retry (same job id) resumes the pending meeting.
    const second = await startWorker();
    const [job] = await jobRow();
    // About 10 s (the heartbeat) + 1 s (supervision) + 1 s (retry delay) + 2 s (polling) once idle;
    // the margin is for a loaded machine. waitFor's error carries the worker's output.
    await second.waitFor(new RegExp(`"id":"${job?.id}"[^\\n]*"msg":"job done"`), 60_000);

    const log = () => second.output().slice(-4000);
    const meetings = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, UUID));
    expect(
      meetings.map((m) => m.status),
      log(),
    ).toEqual(['completed']);
    const meeting = meetings[0] as (typeof meetings)[number];
    expect(meeting.id).toBe(pending[0]?.id);
    // pg-boss settles the job just after the handler's "job done" line (no job events cross processes).
    const settledBy = Date.now() + 10_000;
    let rows = await jobRow();
    while (rows[0]?.state === 'active' && Date.now() < settledBy) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await jobRow();
    }
    expect(
      rows.map((j) => [j.state, j.retry_count]),
      log(),
    ).toEqual([['completed', 1]]);
    // Two downloads in all: the hung one and the retry's.
    expect(
      fake.requests.filter((r) => r.path.startsWith('/rec/download/')),
      log(),
    ).toHaveLength(2);
    // One set of rows: the transcript's single knowledge row, no insight (no AI provider configured).
    const knowledge = await t.ctx.db.select().from(transcriptKnowledge).where(eq(transcriptKnowledge.meetingId, meeting.id));
    expect(knowledge).toHaveLength(1);
    expect(knowledge[0]).toMatchObject({ status: 'approved', title: 'Makerspace sign-off' });
    expect(knowledge[0]?.embedding).toHaveLength(768);
    expect(await t.ctx.db.select().from(confInsights).where(eq(confInsights.meetingId, meeting.id))).toHaveLength(meeting.insightCount);
    expect(second.child.exitCode).toBeNull();
  }, 180_000);
});
