import { Value } from '@sinclair/typebox/value';
import type { CoreContext } from '../context.js';
import './formats.js';
import type { AnyJobDefinition } from './contract.js';

/** A fetched job as the worker hands it over (pg-boss's Job, reduced to what a run needs). */
export interface FetchedJob {
  id: string;
  data: unknown;
  retryCount: number;
  signal?: AbortSignal;
}

/** Fails one job of a batch on its own (pg-boss `fail` on that job's attempt); its retries follow its policy. */
export type FailJob = (job: FetchedJob, error: Error) => Promise<unknown>;

/**
 * Runs a fetched batch one job after another. Each payload is checked against the job's schema before
 * the handler sees it. A job whose payload breaks the schema, or whose handler throws, is failed on
 * its own through `fail`; the rest of the batch still runs, and completes when this returns. Returns
 * the handler's result when the batch is one job (pg-boss stores it as that job's output).
 */
export async function runJobBatch(ctx: CoreContext, job: AnyJobDefinition, batch: readonly FetchedJob[], fail: FailJob): Promise<unknown> {
  let result: unknown;
  for (const fetched of batch) {
    const payload = fetched.data ?? {};
    if (!Value.Check(job.payload, payload)) {
      const first = Value.Errors(job.payload, payload).First();
      const error = new Error(`invalid payload for ${job.name}: ${first?.path || '/'} ${first?.message}`);
      ctx.log.error({ job: job.name, id: fetched.id }, error.message);
      await fail(fetched, error);
      continue;
    }
    const started = performance.now();
    try {
      const meta = { id: fetched.id, retryCount: fetched.retryCount, ...(fetched.signal ? { signal: fetched.signal } : {}) };
      result = await job.handler(ctx, payload, meta);
      ctx.log.info({ job: job.name, id: fetched.id, ms: Math.round(performance.now() - started) }, 'job done');
    } catch (err) {
      ctx.log.warn({ job: job.name, id: fetched.id, retryCount: fetched.retryCount, err }, 'job failed');
      await fail(fetched, err instanceof Error ? err : new Error(String(err)));
    }
  }
  return batch.length === 1 ? result : undefined;
}
