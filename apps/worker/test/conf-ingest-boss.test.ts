import {
  BossJobQueue,
  type CoreContext,
  confIngestJob,
  confProcessMeetingJob,
  ensureQueues,
  handleConfWebhook,
  JOBS,
  processMeeting,
  reprocessMeeting,
} from '@cfaq/core';
import { confMeetings, transcriptKnowledge, users } from '@cfaq/db/schema/index';
import {
  createTestContext,
  type FakeConfProvider,
  settled,
  signConfWebhook,
  startFakeConfProvider,
  startTestBoss,
  type TestContext,
  watchJobs,
} from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../src/worker.js';

const SECRET = 'boss-webhook-secret';
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nAlice: The library is open until nine on weekdays and noon on Saturdays.\n';
let t: TestContext;
let boss: PgBoss;
let worker: Worker;
let ctx: CoreContext;
let fake: FakeConfProvider;
let userId: string;

beforeAll(async () => {
  fake = await startFakeConfProvider();
  fake.users.set('zm-boss', { id: 'zm-boss', email: 'boss@provider.test' });
  t = await createTestContext({ env: { ...fake.env, CONF_WEBHOOK_SECRET_TOKEN: SECRET } });
  boss = await startTestBoss(t.url);
  await ensureQueues(boss, JOBS);
  watchJobs(boss, [confIngestJob, confProcessMeetingJob]);
  // Sends group-committed as in an API process (JOB_SEND_BATCH_MAX).
  ctx = { ...t.ctx, jobs: new BossJobQueue(boss, { batchMax: t.ctx.config.JOB_SEND_BATCH_MAX }) };
  worker = await startWorker(ctx, boss);
  // A connected user, tokens as the OAuth callback stores them.
  const code = fake.issueCode('zm-boss', 'http://cb.test');
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://cb.test' });
  const tokens = (await (
    await fetch(`${fake.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form,
    })
  ).json()) as { access_token: string; refresh_token: string };
  const [u] = await t.ctx.db
    .insert(users)
    .values({ email: 'boss@local.test', name: 'Boss', passwordHash: 'x', role: 'admin', confConnected: true, confUserId: 'zm-boss' })
    .returning({ id: users.id });
  userId = u?.id as string;
  await t.ctx.db
    .update(users)
    .set({
      confAccessToken: t.ctx.secrets.encrypt(tokens.access_token, userId),
      confRefreshToken: t.ctx.secrets.encrypt(tokens.refresh_token, userId),
      confTokenExpiresAt: new Date(Date.now() + 3_600_000),
    })
    .where(eq(users.id, userId));
}, 60_000);
afterAll(async () => {
  await worker?.stop(2000);
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
  await fake?.close();
});

describe('conf ingestion through pg-boss', () => {
  it('ten concurrent deliveries of a signed webhook are acknowledged once its job is committed, and the worker ingests one meeting', async () => {
    fake.addRecording({ uuid: 'boss-1', hostId: 'zm-boss', topic: 'Library hours', vtt: VTT });
    const raw = Buffer.from(JSON.stringify(fake.recordingEvent('boss-1')));
    const headers = signConfWebhook(SECRET, raw.toString());
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        handleConfWebhook(ctx, { rawBody: raw, signature: headers['x-zm-signature'], timestamp: headers['x-zm-request-timestamp'] }),
      ),
    );
    expect(answers.every((a) => 'received' in a && a.received)).toBe(true);
    const { rows } = await t.ctx.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'conf.ingest-recording'`);
    expect(rows[0].n).toBe(1);
    const job = await settled(boss, confIngestJob, (data) => data.meetingUuid === 'boss-1');
    expect(job.state).toBe('completed');
    const meetings = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'boss-1'));
    expect(meetings).toHaveLength(1);
    const meeting = meetings[0];
    expect(meeting?.status).toBe('completed');
    const knowledge = await t.ctx.db
      .select()
      .from(transcriptKnowledge)
      .where(eq(transcriptKnowledge.meetingId, meeting?.id as string));
    expect(knowledge).toHaveLength(1);
    expect(knowledge[0]?.embedding).toHaveLength(768);
  });

  it('a meeting left pending by a killed worker is finished by the retry of its job, once', async () => {
    fake.addRecording({ uuid: 'boss-killed', hostId: 'zm-boss', topic: 'Killed mid-job', vtt: VTT });
    // The state a kill -9 leaves: the job's meeting row exists, pending, nothing else written.
    const jobId = '6f1d3c55-1111-4222-8333-444455556666';
    const [m] = await t.ctx.db
      .insert(confMeetings)
      .values({
        confMeetingId: 'boss-killed',
        topic: 'Killed mid-job',
        sourcing: 'webhook',
        userId,
        status: 'pending',
        payload: { jobId, transcriptUrl: fake.transcriptUrl('boss-killed') },
      })
      .returning();
    const { ingestRecording, recordingPayloadOf } = await import('@cfaq/core');
    const payload = recordingPayloadOf(fake.recordingEvent('boss-killed'), 'webhook');
    expect(await ingestRecording(ctx, payload, { jobId: 'someone-else' })).toMatchObject({ status: 'skipped' });
    expect(await ingestRecording(ctx, payload, { jobId })).toMatchObject({ status: 'completed', meetingId: m?.id });
    expect(await ingestRecording(ctx, payload, { jobId })).toMatchObject({ status: 'skipped' });
    const rows = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'boss-killed'));
    expect(rows.map((r) => r.status)).toEqual(['completed']);
    expect(
      await t.ctx.db
        .select()
        .from(transcriptKnowledge)
        .where(eq(transcriptKnowledge.meetingId, m?.id as string)),
    ).toHaveLength(1);
  });

  it('re-processing queues conf.process-meeting, which stores the meeting again from its kept transcript', async () => {
    const [m] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.confMeetingId, 'boss-1'));
    const downloads = fake.requests.filter((r) => r.path.startsWith('/rec/download/')).length;
    await reprocessMeeting(ctx, m?.id as string);
    expect((await settled(boss, confProcessMeetingJob, (data) => data.meetingId === m?.id)).state).toBe('completed');
    const [r] = await t.ctx.db
      .select()
      .from(confMeetings)
      .where(eq(confMeetings.id, m?.id as string));
    expect(r?.status).toBe('completed');
    expect(fake.requests.filter((r) => r.path.startsWith('/rec/download/')).length).toBe(downloads);
    expect(
      await t.ctx.db
        .select()
        .from(transcriptKnowledge)
        .where(eq(transcriptKnowledge.meetingId, m?.id as string)),
    ).toHaveLength(1);
    expect(await processMeeting(ctx, m?.id as string)).toMatchObject({ status: 'skipped' });
  });
});
