import { type CoreContext, JOBS, registerSchedules } from '@cfaq/core';
import { Value } from '@sinclair/typebox/value';
import type { PgBoss } from 'pg-boss';
import type { AnyJobHandler } from './handler.js';
import { HANDLERS } from './jobs/index.js';

export interface Worker {
  /** Stops fetching, lets in-flight jobs finish (up to the timeout), then returns. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Subscribes a handler to every queue and registers the schedules. Several worker processes can run
 * this at once: pg-boss hands each job to one of them, and schedules are stored once in the database.
 */
export async function startWorker(ctx: CoreContext, boss: PgBoss, handlers: readonly AnyJobHandler[] = HANDLERS): Promise<Worker> {
  const missing = JOBS.filter((j) => !handlers.some((h) => h.job.name === j.name));
  if (missing.length > 0) throw new Error(`no handler for queue(s): ${missing.map((j) => j.name).join(', ')}`);
  for (const handler of handlers) {
    await boss.work(handler.job.name, { batchSize: handler.batchSize ?? 1, pollingIntervalSeconds: 2 }, async (jobs) => {
      for (const job of jobs) {
        const payload = job.data ?? {};
        if (!Value.Check(handler.job.payload, payload)) {
          throw new Error(`invalid payload for ${handler.job.name}: ${Value.Errors(handler.job.payload, payload).First()?.message}`);
        }
        const started = performance.now();
        await handler.run(ctx, payload, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
        ctx.log.info({ job: handler.job.name, id: job.id, ms: Math.round(performance.now() - started) }, 'job done');
      }
    });
  }
  await registerSchedules(boss, JOBS, ctx.config);
  for (const job of JOBS) if (job.runOnStart) await boss.send(job.name, {}, { singletonKey: 'on-start', singletonSeconds: 60 });
  ctx.log.info({ queues: handlers.map((h) => h.job.name) }, 'worker started');
  return {
    async stop(timeoutMs = 8000) {
      const drained = Promise.all(handlers.map((h) => boss.offWork(h.job.name, { wait: true }).catch(() => {})));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          ctx.log.warn({ timeoutMs }, 'in-flight jobs still running at stop timeout');
          resolve();
        }, timeoutMs);
      });
      await Promise.race([drained, timeout]);
      clearTimeout(timer);
    },
  };
}
