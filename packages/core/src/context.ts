import { createDb, createPool, type Db } from '@cfaq/db';
import type pg from 'pg';
import type { Config } from './config/schema.js';
import { SecretBox } from './crypto/secret-box.js';
import type { Embedder } from './embeddings/embedder.js';
import { createEmbedder } from './embeddings/factory.js';
import type { JobQueue } from './jobs/queue.js';
import { type Clock, systemClock } from './runtime/clock.js';
import type { Logger } from './runtime/logger.js';

/**
 * Everything domain code needs from the outside world, passed in rather than imported, so tests can
 * hand in a fixed clock, a fake AI server or an in-memory job queue.
 */
export interface CoreContext {
  config: Config;
  db: Db;
  pool: pg.Pool;
  log: Logger;
  clock: Clock;
  secrets: SecretBox;
  embedder: Embedder;
  jobs: JobQueue;
}

export interface ContextOptions {
  config: Config;
  log: Logger;
  jobs: JobQueue;
  pool?: pg.Pool;
  clock?: Clock;
  embedder?: Embedder;
  applicationName?: string;
}

export function createCoreContext(opts: ContextOptions): CoreContext {
  const { config } = opts;
  if (!config.DATABASE_URL && !opts.pool) throw new Error('DATABASE_URL is required (the start script sets it for the embedded database)');
  if (!config.ENCRYPTION_KEY) throw new Error('ENCRYPTION_KEY is required');
  const pool =
    opts.pool ??
    createPool({
      connectionString: config.DATABASE_URL as string,
      max: config.DATABASE_POOL_MAX,
      ...(opts.applicationName ? { applicationName: opts.applicationName } : {}),
    });
  return {
    config,
    pool,
    db: createDb(pool),
    log: opts.log,
    clock: opts.clock ?? systemClock,
    secrets: new SecretBox(config.ENCRYPTION_KEY),
    embedder: opts.embedder ?? createEmbedder(config, opts.log),
    jobs: opts.jobs,
  };
}
