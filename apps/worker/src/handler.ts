import type { AnyJobDefinition, CoreContext, JobDefinition } from '@cfaq/core';
import type { Static, TSchema } from '@sinclair/typebox';

/** A job's consumer: the core function it calls, nothing more. */
export interface JobHandler<P extends TSchema = TSchema> {
  job: JobDefinition<P>;
  /** Jobs fetched per poll; handlers run them one after another. */
  batchSize?: number;
  run(ctx: CoreContext, payload: Static<P>, meta: { id: string; retryCount: number }): Promise<unknown>;
}

export function defineHandler<P extends TSchema>(job: JobDefinition<P>, run: JobHandler<P>['run'], batchSize?: number): JobHandler<P> {
  return { job, run, ...(batchSize ? { batchSize } : {}) };
}

// biome-ignore lint/suspicious/noExplicitAny: the registration list holds handlers of every payload type
export type AnyJobHandler = JobHandler<any> & { job: AnyJobDefinition };
