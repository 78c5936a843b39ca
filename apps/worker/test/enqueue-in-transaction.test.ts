import {
  type Actor,
  autoAnswerJob,
  BossJobQueue,
  type CoreContext,
  confExtractInsightsJob,
  confProcessMeetingJob,
  createFaq,
  createPost,
  embedRowJob,
  ensureQueues,
  getMeeting,
  JOBS,
  type JobQueue,
  reprocessMeeting,
  triggerAutoAnswer,
  updateFaq,
  updatePost,
  uploadTranscript,
} from '@cfaq/core';
import { adminLogs, communityPosts, confMeetings, faqs } from '@cfaq/db/schema/index';
import {
  createTestContext,
  createUser,
  type FakeAiServer,
  settled,
  startFakeOpenAI,
  startTestBoss,
  type TestContext,
  watchJobs,
} from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../src/worker.js';

// DESIGN.md section 4: a job is enqueued in the same transaction as the write that causes it, so a
// rolled-back write never leaves a job behind. Checked here for every producer that writes and sends.
let t: TestContext;
let ai: FakeAiServer;
let boss: PgBoss;
let worker: Worker;
let ctx: CoreContext;
let admin: Actor;
let author: Actor;
/** Every send of this file: the queue, and whether it went out inside the caller's transaction. */
const sends: { name: string; inTx: boolean; id: string | null }[] = [];

beforeAll(async () => {
  ai = await startFakeOpenAI();
  t = await createTestContext({
    env: { OPENAI_API_KEY: ai.apiKey, OPENAI_BASE_URL: ai.baseUrl, AI_MAX_RETRIES: '0', AI_RETRY_BASE_MS: '1', AI_TIMEOUT_MS: '5000' },
  });
  boss = await startTestBoss(t.url);
  await ensureQueues(boss, JOBS);
  const real = new BossJobQueue(boss);
  const recording: JobQueue = {
    async send(job, payload, opts) {
      const id = await real.send(job, payload, opts);
      sends.push({ name: job.name, inTx: opts?.tx !== undefined, id });
      return id;
    },
  };
  ctx = { ...t.ctx, jobs: recording };
  admin = { id: (await createUser(t.ctx, { role: 'admin' })).id, role: 'admin' };
  author = { id: (await createUser(t.ctx)).id, role: 'user' };
  watchJobs(boss, [embedRowJob, confExtractInsightsJob]);
  worker = await startWorker(ctx, boss, [embedRowJob, confExtractInsightsJob]);
});
afterAll(async () => {
  await worker?.stop(2000);
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
  await ai?.close();
});

const lastSend = () => sends.at(-1) as { name: string; inTx: boolean; id: string };
const jobCount = async (name: string) =>
  (await t.ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1', [name])).rows[0]?.n;

describe('enqueue in the transaction of the write', () => {
  it('a job sent in a transaction that rolls back is gone with it', async () => {
    const before = await jobCount(embedRowJob.name);
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await ctx.jobs.send(embedRowJob, { table: 'faqs', id: '00000000-0000-4000-8000-000000000001' }, { tx });
        throw new Error('the write failed after the send');
      }),
    ).rejects.toThrow(/the write failed/);
    expect(await jobCount(embedRowJob.name)).toBe(before);
  });

  it('FAQ create and edit: the embedding job commits with the write and the worker embeds the row', async () => {
    const faq = await createFaq(ctx, admin, { question: 'Where is the bike shed?', answer: 'Behind the library.' });
    expect(lastSend()).toMatchObject({ name: embedRowJob.name, inTx: true });
    expect((await settled(boss, embedRowJob, lastSend().id)).state).toBe('completed');
    await updateFaq(ctx, admin, faq.id, { answer: 'Behind the gym, since May.' });
    expect(lastSend()).toMatchObject({ name: embedRowJob.name, inTx: true });
    expect((await settled(boss, embedRowJob, lastSend().id)).state).toBe('completed');
    const [row] = await t.ctx.db.select({ embedding: faqs.embedding }).from(faqs).where(eq(faqs.id, faq.id));
    expect(row?.embedding).toHaveLength(768);
  });

  it('post create and edit: the embedding job commits with the write and the worker embeds the row', async () => {
    const post = await createPost(ctx, author, { title: 'Is there a bike shed?', body: 'I could not find one.' });
    expect(lastSend()).toMatchObject({ name: embedRowJob.name, inTx: true });
    expect((await settled(boss, embedRowJob, lastSend().id)).state).toBe('completed');
    await updatePost(ctx, author, post.id, { title: 'Is there a covered bike shed?' });
    expect(lastSend()).toMatchObject({ name: embedRowJob.name, inTx: true });
    expect((await settled(boss, embedRowJob, lastSend().id)).state).toBe('completed');
    const [row] = await t.ctx.db.select({ embedding: communityPosts.embedding }).from(communityPosts).where(eq(communityPosts.id, post.id));
    expect(row?.embedding).toHaveLength(768);
  });

  it('meeting re-process: the job commits with the status change, and a refused one queues nothing', async () => {
    const [m] = await t.ctx.db
      .insert(confMeetings)
      .values({ confMeetingId: 'tx-meeting', topic: 'Tx', sourcing: 'webhook', status: 'completed' })
      .returning({ id: confMeetings.id });
    await reprocessMeeting(ctx, m?.id as string);
    expect(lastSend()).toMatchObject({ name: confProcessMeetingJob.name, inTx: true });
    expect(await jobCount(confProcessMeetingJob.name)).toBe(1);
    // Now pending: a second re-process answers 409 and its transaction queues no job.
    await expect(reprocessMeeting(ctx, m?.id as string)).rejects.toThrow();
    expect(await jobCount(confProcessMeetingJob.name)).toBe(1);
  });

  it('admin auto-answer trigger: the run is queued with its admin-log row', async () => {
    const before = await jobCount(autoAnswerJob.name);
    const r = await triggerAutoAnswer(ctx, admin, { all: true });
    expect(lastSend()).toMatchObject({ name: autoAnswerJob.name, inTx: true });
    expect(await jobCount(autoAnswerJob.name)).toBe((before ?? 0) + 1);
    const [log] = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.action, 'auto_answer.run_queued'));
    expect(log).toMatchObject({ actorId: admin.id, targetId: lastSend().id });
    expect(r).toMatchObject({ queued: true, jobId: lastSend().id, all: true });
  });

  it('a meeting whose insight extraction failed: conf.extract-insights commits with the completed meeting, and the worker extracts', async () => {
    ai.failNext(500);
    ai.reply = (call) =>
      call.prompt.includes('numbered lines')
        ? { insights: [{ question: 'When does the bike shed open?', answer: 'At seven every morning.', segment: 0 }] }
        : {};
    const up = await uploadTranscript(ctx, admin, {
      source: 'manual_raw',
      topic: 'Bike shed',
      content: 'Host: The bike shed behind the library opens at seven every morning.',
    });
    expect(up).toMatchObject({ status: 'completed', insightsStatus: 'retrying' });
    expect(lastSend()).toMatchObject({ name: confExtractInsightsJob.name, inTx: true });
    expect((await settled(boss, confExtractInsightsJob, lastSend().id)).state).toBe('completed');
    expect(await getMeeting(ctx, up.meetingId)).toMatchObject({ insightCount: 1, insightsStatus: 'extracted', insightsError: null });
  });
});
