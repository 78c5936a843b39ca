import { type AnyJobDefinition, type CoreContext, JOBS, registerSchedules, runJobBatch } from '@cfaq/core';
import type { PgBoss } from 'pg-boss';

export interface Worker {
  /** Stops fetching, lets in-flight jobs finish (up to the timeout), then returns. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Consumes every job of core's one list (JOBS) and registers their schedules; no per-job code lives
 * here. Each fetched job settles on its own: one bad payload or one throwing handler fails that job
 * only (runJobBatch), and pg-boss completes the rest of the batch. Several worker processes can run this at once: pg-boss hands
 * each job to one of them, and schedules are stored once in the database.
 */
export async function startWorker(ctx: CoreContext, boss: PgBoss, jobs: readonly AnyJobDefinition[] = JOBS): Promise<Worker> {
  // Aborted when the stop begins: a job's signal (handed to its handler) fires then, not only when
  // pg-boss fails the jobs still running at the end of the stop budget, so a long run (an auto-answer
  // run over every eligible post) stops between its steps while there is time to hand its rest back.
  const stopping = new AbortController();
  for (const job of jobs) {
    // burstWhenBatchFull: a batched queue with a backlog (FAQs created in bulk, each with its embed-row
    // job) fetches again at once while its fetches come back full, instead of waiting out the poll after
    // each batch: 500 FAQs created through the API on PostgreSQL were all embedded 47 s after the last
    // create before, 29 s after (README "Background jobs"). pg-boss ignores it at batchSize 1, where
    // every queue waited out the 2 s poll after each job (ten conf webhooks took 18 s to ingest, 37-86 ms
    // of work each): a fetch that found work wakes its worker, so it fetches again at once until a fetch
    // comes back empty, and only an idle queue polls.
    let workerId: string | undefined;
    workerId = await boss.work(
      job.name,
      { batchSize: job.batchSize ?? 1, burstWhenBatchFull: true, pollingIntervalSeconds: 2 },
      async (batch) => {
        const signalled = batch.map((j) => ({ ...j, signal: AbortSignal.any([j.signal, stopping.signal]) }));
        const result = await runJobBatch(ctx, job, signalled, (failed, error) =>
          boss.fail(job.name, { id: failed.id, retryCount: failed.retryCount }, error),
        );
        if (workerId) boss.notifyWorker(workerId);
        return result;
      },
    );
  }
  await registerSchedules(boss, jobs, ctx.config);
  for (const job of jobs) if (job.runOnStart) await boss.send(job.name, {}, { singletonKey: 'on-start', singletonSeconds: 60 });
  ctx.log.info({ queues: jobs.map((j) => j.name) }, 'worker started');
  return {
    async stop(timeoutMs = 8000) {
      stopping.abort();
      const drained = Promise.all(jobs.map((j) => boss.offWork(j.name, { wait: true }).catch(() => {})));
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
