import { type ConstructorOptions, PgBoss } from 'pg-boss';
import type { Config } from '../config/schema.js';
import { type AnyJobDefinition, deadLetterName, toScheduleExpression } from './contract.js';

/**
 * Creates each queue (and its dead-letter queue) with its policy; existing queues get the policy
 * updated. With `config`, a job's `policyFromConfig` applies over its policy.
 */
export async function ensureQueues(boss: PgBoss, jobs: readonly AnyJobDefinition[], config?: Config): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  for (const job of jobs) {
    const dead = deadLetterName(job.name);
    const policy = { ...job.policy, ...(config && job.policyFromConfig ? job.policyFromConfig(config) : {}) };
    if (policy.deadLetter && !existing.has(dead)) await boss.createQueue(dead, { retentionSeconds: 14 * 86_400 });
    const options = {
      retryLimit: policy.retryLimit,
      retryDelay: policy.retryDelaySeconds,
      retryBackoff: policy.retryBackoff,
      expireInSeconds: policy.expireInSeconds,
      ...(policy.heartbeatSeconds ? { heartbeatSeconds: policy.heartbeatSeconds } : {}),
      ...(policy.deadLetter ? { deadLetter: dead } : {}),
    };
    if (existing.has(job.name)) await boss.updateQueue(job.name, options);
    else await boss.createQueue(job.name, options);
  }
}

/** Registers (or replaces) the schedule of every job that has one under the current settings. */
export async function registerSchedules(boss: PgBoss, jobs: readonly AnyJobDefinition[], config: Config): Promise<void> {
  for (const job of jobs) {
    const schedule = job.schedule?.(config);
    if (schedule) await boss.schedule(job.name, toScheduleExpression(schedule), {}, { tz: 'UTC' });
    else await boss.unschedule(job.name).catch(() => {});
  }
}

/**
 * Starts pg-boss with every queue created (or its policy updated) and held in its queue cache. A job
 * sent inside a transaction looks its queue up in that cache, and a miss reads the queue on pg-boss's
 * own pool: on the embedded database that read waits for the one session the transaction holds, and the
 * transaction waits for the read, for good. Creating or updating a queue evicts it from the cache of the
 * instance that does it (and an instance started before a queue existed never cached it; the cache is
 * refilled once a minute), so a short-lived instance sets the queues up and the one returned starts
 * after it, caching them all at its start.
 */
export async function startBoss(
  options: ConstructorOptions,
  jobs: readonly AnyJobDefinition[],
  config: Config,
  onError: (err: unknown) => void,
): Promise<PgBoss> {
  const setup = new PgBoss({ ...options, schedule: false, supervise: false, max: 1 });
  setup.on('error', onError);
  await setup.start();
  try {
    await ensureQueues(setup, jobs, config);
  } finally {
    await setup.stop({ graceful: false, close: true });
  }
  const boss = new PgBoss(options);
  boss.on('error', onError);
  await boss.start();
  return boss;
}
