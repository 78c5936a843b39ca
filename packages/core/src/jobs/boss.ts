import type { PgBoss } from 'pg-boss';
import type { Config } from '../config/schema.js';
import { type AnyJobDefinition, deadLetterName, toScheduleExpression } from './contract.js';

/** Creates each queue (and its dead-letter queue) with its policy; existing queues get the policy updated. */
export async function ensureQueues(boss: PgBoss, jobs: readonly AnyJobDefinition[]): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  for (const job of jobs) {
    const dead = deadLetterName(job.name);
    if (job.policy.deadLetter && !existing.has(dead)) await boss.createQueue(dead, { retentionSeconds: 14 * 86_400 });
    const options = {
      retryLimit: job.policy.retryLimit,
      retryDelay: job.policy.retryDelaySeconds,
      retryBackoff: job.policy.retryBackoff,
      expireInSeconds: job.policy.expireInSeconds,
      ...(job.policy.deadLetter ? { deadLetter: dead } : {}),
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
