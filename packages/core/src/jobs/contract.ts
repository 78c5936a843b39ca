import type { Static, TSchema } from '@sinclair/typebox';
import type { Config } from '../config/schema.js';
import type { CoreContext } from '../context.js';

/** Retry, expiry and dead-letter policy of a queue, applied by createQueue at worker start. */
export interface JobPolicy {
  retryLimit: number;
  retryDelaySeconds: number;
  retryBackoff: boolean;
  expireInSeconds: number;
  /** Failed jobs land in `<name>.dead` for inspection. */
  deadLetter: boolean;
  /**
   * A running job's worker refreshes it every half of this (pg-boss heartbeats, at least 10 s); one not
   * refreshed for this long (its worker was killed) is failed by the next supervision pass and retried,
   * instead of waiting out `expireInSeconds`. Unset: no heartbeat.
   */
  heartbeatSeconds?: number;
}

/** An interval schedule (RRULE) or a cron line, derived from settings. */
export type JobSchedule = { everyMinutes: number } | { cron: string };

/** What a handler knows about the job it runs, besides the payload. */
export interface JobMeta {
  id: string;
  /** 0 on the first attempt. */
  retryCount: number;
  /** Aborted when the worker stops, the job's claim is lost or it times out (pg-boss's job signal). */
  signal?: AbortSignal;
}

/**
 * One job, whole, in one module (`<area>/<name>-job.ts`): its queue name, payload schema, queue
 * policy, schedule and handler. Producers (API and core services) send it; the worker registers every
 * job of the one list (jobs/registry.ts) generically, so the two sides agree by construction.
 */
export interface JobDefinition<P extends TSchema = TSchema> {
  name: string;
  /** Checked on send, and again in the worker before the handler runs. */
  payload: P;
  policy: JobPolicy;
  /** Parts of the policy that come from settings (applied over `policy` when a process creates the queues). */
  policyFromConfig?: (config: Config) => Partial<JobPolicy>;
  /**
   * The job's work: one core call. It only ever sees a payload that passed `payload`. A throw fails
   * this job alone (retried per `policy`), never the other jobs of its fetched batch.
   */
  handler: (ctx: CoreContext, payload: Static<P>, meta: JobMeta) => Promise<unknown>;
  /** Jobs the worker fetches per poll (default 1); each runs and settles on its own. */
  batchSize?: number;
  schedule?: (config: Config) => JobSchedule | null;
  /** Also run once, with an empty payload, when a worker starts (a fresh database should not wait a whole interval). */
  runOnStart?: boolean;
  /** Duplicate suppression for sends (for example one webhook job per meeting). */
  singletonKey?: (payload: Static<P>) => string | undefined;
  /**
   * A fixed job id (uuid) derived from the payload: a second send with the same id is dropped by the
   * queue (pg-boss inserts with ON CONFLICT DO NOTHING and answers null) while the first job exists.
   */
  jobId?: (payload: Static<P>) => string | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds jobs of every payload type
export type AnyJobDefinition = JobDefinition<any>;

/**
 * Every queue heartbeats: a job whose worker was killed is failed by the next supervision pass once its
 * heartbeat is a minute old, and retried, instead of staying active for its whole expiry (an hour for
 * the auto-answer run, whose claimed posts waited that long). A minute, not less: a handler that holds
 * the event loop (the sentence encoder, the embedded database's statements) must not miss a beat and
 * have its job run twice.
 */
export const DEFAULT_POLICY: JobPolicy = {
  retryLimit: 3,
  retryDelaySeconds: 30,
  retryBackoff: true,
  expireInSeconds: 15 * 60,
  deadLetter: true,
  heartbeatSeconds: 60,
};

export function defineJob<P extends TSchema>(def: JobDefinition<P>): JobDefinition<P> {
  return def;
}

export const deadLetterName = (name: string) => `${name}.dead`;

/** RRULE for an interval, which pg-boss schedules as a recurrence rule rather than cron. */
export function toScheduleExpression(s: JobSchedule): string {
  if ('cron' in s) return s.cron;
  const minutes = Math.max(1, Math.round(s.everyMinutes));
  return `RRULE:FREQ=MINUTELY;INTERVAL=${minutes}`;
}
