import { communityPosts, notifications, pipelineResults, teaNotifications } from '@cfaq/db/schema/index';
import {
  createTestContext,
  createUser,
  defaultProgramId,
  type FakeAiServer,
  quickAiEnv,
  startFakeOpenAI,
  type TestContext,
} from '@cfaq/testkit';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { autoAnswerJob } from '../src/auto-answer/auto-answer-job.js';
import { runAutoAnswer } from '../src/auto-answer/run.js';
import type { Config } from '../src/config/schema.js';
import type { CoreContext } from '../src/context.js';
import type { JobMeta } from '../src/jobs/contract.js';
import { fixedClock } from '../src/runtime/clock.js';

/**
 * An auto-answer run is bounded: an `all` run tries each eligible post at most once (also with
 * AUTO_ANSWER_COOLDOWN_HOURS=0, where a post it escalated is at once eligible again), and the job's
 * abort signal stops it between posts and batches.
 */
const NOW = new Date('2026-06-01T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000);
let t: TestContext;
let fake: FakeAiServer;
let ctx: CoreContext;
let program: string;
let author: { id: string };

const withConfig = (over: Partial<Config>): CoreContext => ({ ...t.ctx, config: { ...t.ctx.config, ...over } });
/** No cooldown, small batches, one post at a time: the setting that looped. */
const loopProne = () => withConfig({ AUTO_ANSWER_COOLDOWN_HOURS: 0, AUTO_ANSWER_BATCH_SIZE: 2, AUTO_ANSWER_CONCURRENCY: 1 });

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestContext({
    clock: fixedClock(NOW),
    env: quickAiEnv(fake, 5000),
  });
  ctx = t.ctx;
  program = await defaultProgramId(ctx);
  author = await createUser(ctx);
});
afterAll(async () => {
  await fake.close();
  await t.close();
});
beforeEach(async () => {
  await ctx.db.delete(pipelineResults);
  await ctx.db.delete(notifications);
  await ctx.db.delete(teaNotifications);
  await ctx.db.delete(communityPosts);
  fake.calls.length = 0;
  // The model declines every question: each post escalates (no knowledge, the generation path).
  fake.reply = () => ({ answer: '', answerable: false });
});

async function posts(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const [row] = await ctx.db
      .insert(communityPosts)
      .values({ batchId: program, authorId: author.id, title: `Question ${i}`, body: 'Details.', createdAt: hoursAgo(10 - i * 0.1) })
      .returning({ id: communityPosts.id });
    ids.push(row?.id as string);
  }
  return ids;
}
const state = async () =>
  await ctx.db
    .select({
      id: communityPosts.id,
      attempts: communityPosts.aiAnswerAttempts,
      claim: communityPosts.aiAnswerClaim,
      status: communityPosts.aiAnswerStatus,
    })
    .from(communityPosts)
    .orderBy(communityPosts.createdAt);
const results = async () => (await ctx.db.select({ n: count() }).from(pipelineResults))[0]?.n;

describe('an all=true run with AUTO_ANSWER_COOLDOWN_HOURS=0', () => {
  it('ends once every eligible post was tried once, though each one escalates and is at once eligible again', async () => {
    const ids = await posts(5);
    // A guard, so that a run that loops fails this test instead of hanging it: stopped past 30 calls.
    const guard = new AbortController();
    fake.reply = () => {
      if (fake.calls.length > 30) guard.abort();
      return { answer: '', answerable: false };
    };
    const report = await runAutoAnswer(loopProne(), { trigger: 'admin', all: true, signal: guard.signal });
    expect(guard.signal.aborted).toBe(false);
    expect(report.processed).toBe(5);
    expect(report.counts).toMatchObject({ escalated: 5, errors: 0 });
    expect([...new Set(report.items.map((i) => i.postId))].sort()).toEqual([...ids].sort());
    expect(fake.calls).toHaveLength(5);
    expect(await results()).toBe(5);
    for (const p of await state()) expect(p).toMatchObject({ attempts: 1, claim: null, status: 'escalated' });

    // A later run tries them again (cooldown 0), each once more.
    const again = await runAutoAnswer(loopProne(), { trigger: 'admin', all: true, signal: guard.signal });
    expect(again.processed).toBe(5);
    for (const p of await state()) expect(p.attempts).toBe(2);
  });
});

describe("the run's abort signal", () => {
  it('an aborted run stops between posts: the claimed posts it did not start keep their claim, for the retry of the same job', async () => {
    const ids = await posts(5);
    const stop = new AbortController();
    const runId = '0190f3a2-7c4e-7a10-8000-0000000000a1';
    // The worker stops while the first post's provider call is in flight.
    fake.reply = () => {
      stop.abort();
      return { answer: '', answerable: false };
    };
    const c = withConfig({ AUTO_ANSWER_BATCH_SIZE: 3, AUTO_ANSWER_CONCURRENCY: 1 });
    const report = await runAutoAnswer(c, { trigger: 'admin', all: true, runId, signal: stop.signal });
    expect(report.processed).toBe(1);
    expect(fake.calls).toHaveLength(1);
    expect(await results()).toBe(1);
    const after = await state();
    expect(after.map((p) => [p.attempts, p.claim])).toEqual([
      [1, null], // tried
      [1, runId], // claimed in the same batch, not started
      [1, runId],
      [0, null], // the next batch was never claimed
      [0, null],
    ]);

    // The job's retry (same id, no stop) takes back the two it left, then the rest.
    fake.reply = () => ({ answer: '', answerable: false });
    const retry = await runAutoAnswer(c, { trigger: 'admin', all: true, runId });
    expect(retry.items.map((i) => i.postId).sort()).toEqual(ids.slice(1).sort());
    expect((await state()).every((p) => p.claim === null && p.status === 'escalated')).toBe(true);
  });

  it("an abandoned claim (its job's retries spent) is any run's after the lease, not held for the cooldown", async () => {
    const ids = await posts(3);
    const stop = new AbortController();
    fake.reply = () => {
      stop.abort();
      return { answer: '', answerable: false };
    };
    const c = withConfig({ AUTO_ANSWER_BATCH_SIZE: 3, AUTO_ANSWER_CONCURRENCY: 1 });
    await runAutoAnswer(c, { trigger: 'admin', all: true, runId: '0190f3a2-7c4e-7a10-8000-0000000000a3', signal: stop.signal });
    // The job is never retried. Another run within the lease leaves its claims alone...
    fake.reply = () => ({ answer: '', answerable: false });
    const at = (minutes: number) => ({ ...c, clock: fixedClock(new Date(NOW.getTime() + minutes * 60_000)) });
    expect((await runAutoAnswer(at(10), { trigger: 'schedule', all: true })).processed).toBe(0);
    // ...and takes them once it has run out (the cooldown of 24 h is for posts that were answered or escalated).
    const later = await runAutoAnswer(at(16), { trigger: 'schedule', all: true });
    expect(later.items.map((i) => i.postId).sort()).toEqual(ids.slice(1).sort());
    // A claim that never finished is not a second attempt.
    expect((await state()).map((p) => [p.attempts, p.claim, p.status])).toEqual([
      [1, null, 'escalated'],
      [1, null, 'escalated'],
      [1, null, 'escalated'],
    ]);
  });

  it('a run aborted between batches claims no further batch', async () => {
    await posts(5);
    const stop = new AbortController();
    // Aborted during the second post, the last of the first batch (batch size 2).
    fake.reply = () => {
      if (fake.calls.length === 2) stop.abort();
      return { answer: '', answerable: false };
    };
    const report = await runAutoAnswer(loopProne(), { trigger: 'admin', all: true, signal: stop.signal });
    expect(report.processed).toBe(2);
    expect((await state()).map((p) => p.attempts)).toEqual([1, 1, 0, 0, 0]);
  });

  it('the pipeline.auto-answer job hands its signal to the run, and a stopped run fails the job (its retry goes on)', async () => {
    await posts(3);
    const stop = new AbortController();
    stop.abort();
    const meta = { id: '0190f3a2-7c4e-7a10-8000-0000000000a2', retryCount: 0, signal: stop.signal } as JobMeta;
    await expect(autoAnswerJob.handler(ctx, { trigger: 'admin', all: true }, meta)).rejects.toThrow(
      /stopped after 0 posts; the retry goes on/,
    );
    expect(fake.calls).toHaveLength(0);
    expect((await state()).map((p) => p.attempts)).toEqual([0, 0, 0]);
    // Without a signal the same job runs.
    const ran = (await autoAnswerJob.handler(ctx, { trigger: 'admin', all: true }, { id: meta.id, retryCount: 0 })) as {
      processed: number;
    };
    expect(ran.processed).toBe(3);
  });
});
