import type { AnyJobDefinition } from '@cfaq/core';
import { type ConstructorOptions, PgBoss, type SpyJob } from 'pg-boss';

/**
 * A started pg-boss on a test database with its job spies on (`__test__enableSpies`), so tests wait on
 * job events (`settled`) rather than polling the job table. Maintenance and schedules are off unless
 * asked for.
 */
export async function startTestBoss(url: string, options: Partial<ConstructorOptions> = {}): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    max: 3,
    supervise: false,
    schedule: false,
    ...options,
    __test__enableSpies: true,
  });
  boss.on('error', () => {});
  await boss.start();
  return boss;
}

export type SettledJob = SpyJob<Record<string, unknown>>;

/**
 * Resolves when a job of this queue reaches a final state, completed or failed (a failure with retries
 * left is not final: its retry settles later), as the worker of this boss reports it. `which` is the
 * job id or a test of its payload. Both outcomes resolve, so a test asserts the state it expects and a
 * wrong outcome fails at once instead of at the timeout. The spy is attached on the first call for a
 * queue and sees jobs settled after that, so ask before the job can finish (before the send, or before
 * the worker starts), or rely on `watchJobs` having been called earlier.
 */
export function settled(
  boss: PgBoss,
  job: Pick<AnyJobDefinition, 'name'> | string,
  which: string | ((data: Record<string, unknown>) => boolean),
  timeoutMs = 20_000,
): Promise<SettledJob> {
  const name = typeof job === 'string' ? job : job.name;
  const spy = boss.getSpy<Record<string, unknown>>(name);
  const wait = (state: 'completed' | 'failed') =>
    typeof which === 'string' ? spy.waitForJobWithId(which, state) : spy.waitForJob(which, state);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`job ${name} (${typeof which === 'string' ? which : 'by payload'}) not settled after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([wait('completed'), wait('failed'), timeout]).finally(() => clearTimeout(timer));
}

/** Attaches the spies of these queues now, so jobs that settle before a test asks are still seen. */
export function watchJobs(boss: PgBoss, jobs: readonly (Pick<AnyJobDefinition, 'name'> | string)[]): void {
  for (const job of jobs) boss.getSpy(typeof job === 'string' ? job : job.name);
}
