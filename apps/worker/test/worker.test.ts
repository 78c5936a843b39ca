import {
  BossJobQueue,
  DEFAULT_POLICY,
  defineJob,
  ensureQueues,
  JOBS,
  lexemeStatsJob,
  promotionCycleJob,
  retentionJob,
  toScheduleExpression,
} from '@cfaq/core';
import { pipelineResults } from '@cfaq/db/schema/index';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import { Type as T } from '@sinclair/typebox';
import { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineHandler } from '../src/handler.js';
import { HANDLERS } from '../src/jobs/index.js';
import { startWorker, type Worker } from '../src/worker.js';

let t: TestContext;
let boss: PgBoss;
let worker: Worker;

const failingJob = defineJob({
  name: 'test.always-fails',
  payload: T.Object({ n: T.Integer() }),
  policy: { ...DEFAULT_POLICY, retryLimit: 1, retryDelaySeconds: 1, retryBackoff: false },
});
let failures = 0;
const failingHandler = defineHandler(failingJob, async () => {
  failures++;
  throw new Error('deliberate failure');
});

async function waitForState(name: string, id: string, states: string[], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await boss.getJobById(name, id);
    if (job && states.includes(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`job ${name}/${id} still ${job?.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  t = await createTestContext();
  boss = new PgBoss({ connectionString: t.url, schema: 'pgboss', max: 3 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss, [...JOBS, failingJob]);
  t.ctx.jobs = new BossJobQueue(boss);
  worker = await startWorker(t.ctx, boss, [...HANDLERS, failingHandler]);
});
afterAll(async () => {
  await worker?.stop();
  await boss?.stop({ graceful: false, close: true });
  await t.close();
});

describe('worker', () => {
  it('registers every job definition core exports, so no send targets a missing queue', async () => {
    const core = (await import('@cfaq/core')) as Record<string, unknown>;
    const defined = Object.values(core).filter(
      (v): v is { name: string } => typeof v === 'object' && v !== null && 'name' in v && 'payload' in v && 'policy' in v,
    );
    expect(defined.length).toBeGreaterThan(0);
    expect(JOBS.map((j) => j.name).sort()).toEqual(expect.arrayContaining(defined.map((j) => j.name).sort()));
  });

  it('has a handler for every queue in the registry', () => {
    expect(HANDLERS.map((h) => h.job.name).sort()).toEqual(JOBS.map((j) => j.name).sort());
  });

  it('creates each queue with its policy and a dead-letter queue', async () => {
    const queue = await boss.getQueue(retentionJob.name);
    expect(queue).toMatchObject({ retryLimit: retentionJob.policy.retryLimit, deadLetter: `${retentionJob.name}.dead` });
    expect(await boss.getQueue(`${retentionJob.name}.dead`)).toBeTruthy();
  });

  it('registers the schedules from settings', async () => {
    const schedules = await boss.getSchedules();
    const retention = schedules.find((s) => s.name === retentionJob.name);
    expect(retention?.cron).toBe('RRULE:FREQ=MINUTELY;INTERVAL=1440');
    // Every scheduled job of the registry is registered at start, with the expression its settings give.
    const byName = new Map(schedules.map((s) => [s.name, s.cron]));
    for (const job of JOBS) {
      const schedule = job.schedule?.(t.ctx.config);
      if (schedule) expect([job.name, byName.get(job.name)]).toEqual([job.name, toScheduleExpression(schedule)]);
    }
    expect(byName.get(promotionCycleJob.name)).toBe('RRULE:FREQ=MINUTELY;INTERVAL=15');
  });

  it('refreshes the search word statistics once at start, then on their schedule', async () => {
    const deadline = Date.now() + 20_000;
    let done: { state: string }[] = [];
    while (Date.now() < deadline) {
      done = (await boss.findJobs(lexemeStatsJob.name)) as { state: string }[];
      if (done.some((j) => j.state === 'completed')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(done.map((j) => j.state)).toContain('completed');
    const schedule = (await boss.getSchedules()).find((s) => s.name === lexemeStatsJob.name);
    expect(schedule?.cron).toBe('RRULE:FREQ=MINUTELY;INTERVAL=15');
  });

  it('runs a job sent through the shared contract end to end', async () => {
    await t.ctx.db.insert(pipelineResults).values({
      pipeline: 'faq_audit',
      targetModel: 'FAQ',
      targetId: '00000000-0000-4000-8000-000000000009',
      targetTitle: 'expired',
      verdict: 'correct',
      flagged: false,
      checkedAt: new Date(Date.now() - 40 * 86_400_000),
    });
    const id = await t.ctx.jobs.send(retentionJob, {});
    expect(id).toBeTruthy();
    await waitForState(retentionJob.name, id as string, ['completed']);
    expect(await t.ctx.db.select().from(pipelineResults)).toHaveLength(0);
  });

  it('rejects a payload that breaks the contract before it is queued', async () => {
    await expect(t.ctx.jobs.send(failingJob, { n: 'x' } as never)).rejects.toThrow(/invalid payload/);
  });

  it('retries a failing job per its policy, then dead-letters it', async () => {
    const id = await t.ctx.jobs.send(failingJob, { n: 1 });
    await waitForState(failingJob.name, id as string, ['failed']);
    expect(failures).toBe(2);
    const dead = await boss.fetch(`${failingJob.name}.dead`);
    expect(dead?.[0]?.data).toEqual({ n: 1 });
  });

  it('refuses to start when a queue has no handler', async () => {
    await expect(startWorker(t.ctx, boss, [])).rejects.toThrow(/no handler for queue/);
  });
});
