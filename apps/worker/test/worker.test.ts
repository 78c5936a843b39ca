import { randomUUID } from 'node:crypto';
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
import { createTestContext, settled, startTestBoss, type TestContext, watchJobs } from '@cfaq/testkit';
import { Type as T } from '@sinclair/typebox';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../src/worker.js';

let t: TestContext;
let boss: PgBoss;
let worker: Worker;

let failures = 0;
const failingJob = defineJob({
  name: 'test.always-fails',
  payload: T.Object({ n: T.Integer() }),
  policy: { ...DEFAULT_POLICY, retryLimit: 1, retryDelaySeconds: 1, retryBackoff: false },
  handler: async () => {
    failures++;
    throw new Error('deliberate failure');
  },
});

beforeAll(async () => {
  t = await createTestContext();
  boss = await startTestBoss(t.url, { supervise: true, schedule: true });
  await ensureQueues(boss, [...JOBS, failingJob]);
  t.ctx.jobs = new BossJobQueue(boss);
  // Spies attached before the worker starts, so its start-up jobs (lexeme statistics) are seen.
  watchJobs(boss, [...JOBS, failingJob]);
  worker = await startWorker(t.ctx, boss, [...JOBS, failingJob]);
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

  it('lists each job once, each with its handler in its own module', () => {
    expect(new Set(JOBS.map((j) => j.name)).size).toBe(JOBS.length);
    for (const job of JOBS) expect([job.name, typeof job.handler]).toEqual([job.name, 'function']);
  });

  it('creates each queue with its policy and a dead-letter queue', async () => {
    const queue = await boss.getQueue(retentionJob.name);
    expect(queue).toMatchObject({ retryLimit: retentionJob.policy.retryLimit, deadLetter: `${retentionJob.name}.dead` });
    expect(await boss.getQueue(`${retentionJob.name}.dead`)).toBeTruthy();
  });

  it('gives every queue a heartbeat, so a job whose worker was killed is retried within minutes, not after its expiry', async () => {
    for (const job of JOBS) {
      const queue = await boss.getQueue(job.name);
      expect(queue?.heartbeatSeconds, job.name).toBeGreaterThanOrEqual(10);
      expect(queue?.heartbeatSeconds, job.name).toBeLessThanOrEqual(60);
    }
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
    // A row whose embed-row job ran out of retries while the embedder was down is not left out until a restart.
    expect(byName.get('search.embeddings-backfill')).toBe('RRULE:FREQ=MINUTELY;INTERVAL=15');
  });

  it('refreshes the search word statistics once at start, then on their schedule', async () => {
    const onStart = await settled(boss, lexemeStatsJob, () => true);
    expect(onStart.state).toBe('completed');
    expect((await boss.findJobs(lexemeStatsJob.name)).map((j) => j.state)).toContain('completed');
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
    expect((await settled(boss, retentionJob, id as string)).state).toBe('completed');
    expect(await t.ctx.db.select().from(pipelineResults)).toHaveLength(0);
  });

  it('rejects a payload that breaks the contract before it is queued', async () => {
    await expect(t.ctx.jobs.send(failingJob, { n: 'x' } as never)).rejects.toThrow(/invalid payload/);
  });

  it('retries a failing job per its policy, then dead-letters it', async () => {
    const id = await t.ctx.jobs.send(failingJob, { n: 1 });
    expect((await settled(boss, failingJob, id as string)).state).toBe('failed');
    expect((await boss.getJobById(failingJob.name, id as string))?.state).toBe('failed');
    expect(failures).toBe(2);
    const dead = await boss.fetch(`${failingJob.name}.dead`);
    expect(dead?.[0]?.data).toEqual({ n: 1 });
  });

  it('drains a backlog of a batched queue fetch after fetch, without waiting a poll between full batches', async () => {
    const drainJob = defineJob({
      name: 'test.drain-backlog',
      payload: T.Object({ n: T.Integer() }),
      policy: { ...DEFAULT_POLICY, retryLimit: 0 },
      batchSize: 20,
      handler: async () => null,
    });
    await ensureQueues(boss, [drainJob]);
    const ids = Array.from({ length: 60 }, () => randomUUID());
    await boss.insert(
      drainJob.name,
      ids.map((id, n) => ({ id, data: { n } })),
    );
    watchJobs(boss, [drainJob]);
    const drainWorker = await startWorker(t.ctx, boss, [drainJob]);
    try {
      const outcomes = await Promise.all(ids.map((id) => settled(boss, drainJob, id)));
      expect(outcomes.every((o) => o.state === 'completed')).toBe(true);
      const { rows } = await t.ctx.pool.query<{ started: Date }>(
        'SELECT DISTINCT started_on AS started FROM pgboss.job WHERE name = $1 ORDER BY 1',
        [drainJob.name],
      );
      expect(rows).toHaveLength(3); // three full fetches of twenty
      // Polling alone would put the third fetch at least two intervals (2 s each) after the first.
      const spreadMs = (rows[2] as { started: Date }).started.getTime() - (rows[0] as { started: Date }).started.getTime();
      expect(spreadMs).toBeLessThan(2000);
    } finally {
      await drainWorker.stop(2000);
    }
  });

  it('drains a backlog of a one-at-a-time queue job after job, without waiting a poll between jobs', async () => {
    const oneJob = defineJob({
      name: 'test.drain-one-at-a-time',
      payload: T.Object({ n: T.Integer() }),
      policy: { ...DEFAULT_POLICY, retryLimit: 0 },
      handler: async () => null,
    });
    await ensureQueues(boss, [oneJob]);
    const ids = Array.from({ length: 8 }, () => randomUUID());
    await boss.insert(
      oneJob.name,
      ids.map((id, n) => ({ id, data: { n } })),
    );
    watchJobs(boss, [oneJob]);
    const oneWorker = await startWorker(t.ctx, boss, [oneJob]);
    try {
      const outcomes = await Promise.all(ids.map((id) => settled(boss, oneJob, id)));
      expect(outcomes.every((o) => o.state === 'completed')).toBe(true);
      const { rows } = await t.ctx.pool.query<{ started: Date }>(
        'SELECT started_on AS started FROM pgboss.job WHERE name = $1 ORDER BY 1',
        [oneJob.name],
      );
      expect(rows).toHaveLength(8);
      // Polling alone would start each job a poll interval (2 s) after the one before: 14 s from first to last.
      const spreadMs = (rows[7] as { started: Date }).started.getTime() - (rows[0] as { started: Date }).started.getTime();
      expect(spreadMs).toBeLessThan(4000);
    } finally {
      await oneWorker.stop(2000);
    }
  });
  it('settles each job of a fetched batch on its own: a bad payload and a throwing handler fail only themselves', async () => {
    const ran: number[] = [];
    const batchJob = defineJob({
      name: 'test.batch-of-twenty',
      payload: T.Object({ n: T.Integer() }),
      policy: { ...DEFAULT_POLICY, retryLimit: 1, retryDelaySeconds: 1, retryBackoff: false },
      batchSize: 20,
      handler: async (_ctx, p) => {
        ran.push(p.n);
        if (p.n === 7) throw new Error('deliberate failure of job 7');
        return { doubled: p.n * 2 };
      },
    });
    await ensureQueues(boss, [batchJob]);
    // Twenty jobs queued before anything consumes the queue, so one fetch takes them all. Job 13's payload
    // breaks the schema (inserted past the sending contract, as a stale producer or a hand edit would).
    const ids = Array.from({ length: 20 }, () => randomUUID());
    await boss.insert(
      batchJob.name,
      ids.map((id, n) => ({ id, data: n === 13 ? { n: 'thirteen' } : { n } })),
    );
    watchJobs(boss, [batchJob]);
    const batchWorker = await startWorker(t.ctx, boss, [batchJob]);
    try {
      const outcomes = await Promise.all(ids.map((id) => settled(boss, batchJob, id)));
      const { rows } = await t.ctx.pool.query<{ n: number }>(
        'SELECT count(DISTINCT started_on)::int AS n FROM pgboss.job WHERE name = $1 AND NOT id = ANY($2::uuid[])',
        [batchJob.name, [ids[7], ids[13]]],
      );
      expect(rows[0]?.n).toBe(1); // one fetch: all twenty started in the same statement (7 and 13 again on retry)
      expect(outcomes.map((o, n) => `${n}:${o.state}`)).toEqual(ids.map((_, n) => `${n}:${n === 7 || n === 13 ? 'failed' : 'completed'}`));
      // The handler never saw the bad payload; it ran every other job once, the ones after 7 included,
      // and 7 once more on its retry (13 was retried too, and refused again before its handler).
      expect(ran.sort((a, b) => a - b)).toEqual([...ids.map((_, n) => n).filter((n) => n !== 13), 7].sort((a, b) => a - b));
      expect(JSON.stringify(outcomes[7]?.output)).toContain('deliberate failure of job 7');
      expect(JSON.stringify(outcomes[13]?.output)).toContain('invalid payload for test.batch-of-twenty: /n');
      // Both failed per their policy (one retry each), then went to the dead letters.
      for (const n of [7, 13]) expect((await boss.getJobById(batchJob.name, ids[n] as string))?.retryCount).toBe(1);
      const dead = await boss.fetch(`${batchJob.name}.dead`, { batchSize: 5 });
      expect(dead?.map((j) => JSON.stringify(j.data)).sort()).toEqual(['{"n":"thirteen"}', '{"n":7}']);
    } finally {
      await batchWorker.stop(2000);
    }
  });

  it("aborts a running job's signal as soon as the stop begins, so a long job stops while there is time", async () => {
    let entered: () => void = () => {};
    const running = new Promise<void>((r) => {
      entered = r;
    });
    let abortedAfterMs: number | null = null;
    const longJob = defineJob({
      name: 'test.long-running',
      payload: T.Object({}),
      policy: { ...DEFAULT_POLICY, retryLimit: 0 },
      handler: async (_ctx, _p, meta) => {
        entered();
        const started = Date.now();
        await new Promise<void>((resolve) => {
          const done = setTimeout(resolve, 20_000);
          meta.signal?.addEventListener('abort', () => {
            abortedAfterMs = Date.now() - started;
            clearTimeout(done);
            resolve();
          });
        });
      },
    });
    await ensureQueues(boss, [longJob]);
    const longWorker = await startWorker(t.ctx, boss, [longJob]);
    await boss.send(longJob.name, {});
    await running;
    const stopAt = Date.now();
    await longWorker.stop(5000);
    expect(abortedAfterMs).not.toBeNull();
    // The stop returned once the job ended on its signal, well inside the budget.
    expect(Date.now() - stopAt).toBeLessThan(4000);
  });
});
