import { rmSync } from 'node:fs';
import { type Clock, type CoreContext, createCoreContext, createLogger, type Embedder, type JobQueue, MemoryJobQueue } from '@cfaq/core';
import { createPool } from '@cfaq/db';
import { openEmbeddedDatabase } from '@cfaq/db/embedded';
import { inject } from 'vitest';
import { testConfig } from './config.js';
import { cloneDatabase } from './database.js';
import { embeddedDatabaseDir } from './embedded-template.js';

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

/**
 * A core context over a copy of the migrated embedded database (PGlite), for the tests of what runs
 * differently there; close() stops it and removes the copy.
 */
export async function createEmbeddedTestContext(opts: Pick<TestContextOptions, 'clock'> = {}): Promise<Pick<TestContext, 'ctx' | 'close'>> {
  const dir = await embeddedDatabaseDir('migrated');
  const embedded = await openEmbeddedDatabase(dir);
  const pool = createPool({ connectionString: embedded.url, max: 2 });
  const ctx = createCoreContext({
    config: testConfig({ DATABASE_URL: embedded.url }),
    pool,
    jobs: new MemoryJobQueue(),
    log: createLogger({ level: 'silent' }),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  return {
    ctx,
    async close() {
      await pool.end();
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
