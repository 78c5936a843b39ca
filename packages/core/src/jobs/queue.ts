import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'drizzle-orm';
import { fromDrizzle, type PgBoss } from 'pg-boss';
import './formats.js';
import type { JobDefinition } from './contract.js';

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();
/**
 * A payload schema's compiled check, built once per schema: every send checks its payload, and
 * interpreting the schema (Value.Check) on each one was per-request work on hot paths such as the
 * webhook acknowledgement.
 */
function checkerOf(schema: TSchema): TypeCheck<TSchema> {
  let check = checkers.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    checkers.set(schema, check);
  }
  return check;
}

/** Anything drizzle can `execute` on: the db itself or a transaction. */
export interface Executor {
  execute(query: unknown): Promise<unknown>;
}

/** Sends jobs. Given a transaction, the job commits or rolls back with it. */
export interface JobQueue {
  send<P extends TSchema>(
    job: JobDefinition<P>,
    payload: Static<P>,
    opts?: { tx?: Executor; startAfterSeconds?: number },
  ): Promise<string | null>;
}

export class BossJobQueue implements JobQueue {
  constructor(private readonly boss: PgBoss) {}

  async send<P extends TSchema>(
    job: JobDefinition<P>,
    payload: Static<P>,
    opts: { tx?: Executor; startAfterSeconds?: number } = {},
  ): Promise<string | null> {
    if (!checkerOf(job.payload).Check(payload)) {
      const first = Value.Errors(job.payload, payload).First();
      throw new Error(`invalid payload for job ${job.name}: ${first?.path} ${first?.message}`);
    }
    const singletonKey = job.singletonKey?.(payload);
    const id = job.jobId?.(payload);
    return this.boss.send(job.name, payload as object, {
      ...(singletonKey ? { singletonKey } : {}),
      ...(id ? { id } : {}),
      ...(opts.startAfterSeconds ? { startAfter: opts.startAfterSeconds } : {}),
      ...(opts.tx ? { db: fromDrizzle(opts.tx as never, sql as never) } : {}),
    });
  }
}

/** Records sends in memory: for processes and tests that run without a job system. */
export class MemoryJobQueue implements JobQueue {
  readonly sent: { name: string; payload: unknown; id?: string }[] = [];
  /** Like the real queue, a fixed job id (JobDefinition.jobId) already sent is dropped (null). */
  async send<P extends TSchema>(job: JobDefinition<P>, payload: Static<P>): Promise<string | null> {
    const fixed = job.jobId?.(payload);
    if (fixed && this.sent.some((s) => s.id === fixed)) return null;
    this.sent.push({ name: job.name, payload, ...(fixed ? { id: fixed } : {}) });
    return fixed ?? `${this.sent.length}`;
  }
}
