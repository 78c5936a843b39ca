import { randomUUID } from 'node:crypto';
import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'drizzle-orm';
import { fromDrizzle, type PgBoss } from 'pg-boss';
import './formats.js';
import type { JobDefinition } from './contract.js';
import { GroupCommit } from './group-commit.js';

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

/** A job row as pg-boss's `insert` takes it; the id is always set so results can be matched back. */
interface JobRow {
  id: string;
  data: object;
  singletonKey?: string;
  startAfter?: string;
}

export class BossJobQueue implements JobQueue {
  private readonly batches = new Map<string, GroupCommit<JobRow, string | null>>();

  /**
   * @param opts.batchMax sends outside a transaction are group-committed, up to this many rows per
   * INSERT (JOB_SEND_BATCH_MAX); 1 sends each on its own.
   */
  constructor(
    private readonly boss: PgBoss,
    private readonly opts: { batchMax?: number } = {},
  ) {}

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
    const batchMax = this.opts.batchMax ?? 1;
    // In the caller's transaction the job must commit or roll back with it: never batched.
    if (opts.tx || batchMax <= 1) {
      return this.boss.send(job.name, payload as object, {
        ...(singletonKey ? { singletonKey } : {}),
        ...(id ? { id } : {}),
        ...(opts.startAfterSeconds ? { startAfter: opts.startAfterSeconds } : {}),
        ...(opts.tx ? { db: fromDrizzle(opts.tx as never, sql as never) } : {}),
      });
    }
    let batch = this.batches.get(job.name);
    if (!batch) {
      batch = new GroupCommit((rows) => this.insert(job.name, rows), batchMax);
      this.batches.set(job.name, batch);
    }
    return batch.add({
      id: id ?? randomUUID(),
      data: payload as object,
      ...(singletonKey ? { singletonKey } : {}),
      // As send() passes a number of seconds: the insert reads it as an interval.
      ...(opts.startAfterSeconds ? { startAfter: String(opts.startAfterSeconds) } : {}),
    });
  }

  /**
   * One INSERT (pg-boss's, the same statement send() runs, ON CONFLICT DO NOTHING) and one commit for
   * the rows; each row answers its id if it was inserted and null if it already existed (a fixed job id
   * or singleton key taken), as send() does. Repeated ids in one batch go in once; the repeats answer null.
   */
  private async insert(name: string, rows: JobRow[]): Promise<(string | null)[]> {
    const first = new Map<string, JobRow>();
    for (const r of rows) if (!first.has(r.id)) first.set(r.id, r);
    const inserted = new Set((await this.boss.insert(name, [...first.values()], { returnId: true })) ?? []);
    return rows.map((r) => (first.get(r.id) === r && inserted.has(r.id) ? r.id : null));
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
