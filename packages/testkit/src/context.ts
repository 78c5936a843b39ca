import { type Clock, type CoreContext, createCoreContext, createLogger, type Embedder, type JobQueue, MemoryJobQueue } from '@cfaq/core';
import { createPool } from '@cfaq/db';
import { inject } from 'vitest';
import { testConfig } from './config.js';
import { cloneDatabase } from './database.js';

export interface TestContext {
  ctx: CoreContext;
  jobs: JobQueue;
  url: string;
  close(): Promise<void>;
}

export interface TestContextOptions {
  env?: Record<string, string | undefined>;
  clock?: Clock;
  embedder?: Embedder;
  jobs?: JobQueue;
  /** Connections in the pool (5): more where a test needs that many transactions at once. */
  poolSize?: number;
}

/** A core context over a database of this test file's own, cloned from the migrated template. */
export async function createTestContext(opts: TestContextOptions = {}): Promise<TestContext> {
  const db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
  const config = testConfig({ DATABASE_URL: db.url, ...opts.env });
  const pool = createPool({ connectionString: db.url, max: opts.poolSize ?? 5 });
  const jobs = opts.jobs ?? new MemoryJobQueue();
  const ctx = createCoreContext({
    config,
    pool,
    jobs,
    log: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.embedder ? { embedder: opts.embedder } : {}),
  });
  return {
    ctx,
    jobs,
    url: db.url,
    async close() {
      await pool.end();
      await db.drop();
    },
  };
}
