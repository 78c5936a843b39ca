import { join } from 'node:path';
import { createPool, runMigrations } from '@cfaq/db';
import { type EmbeddedDatabase, openEmbeddedDatabase } from '@cfaq/db/embedded';
import type { PgBoss } from 'pg-boss';
import { ensureDataDir } from '../config/data-dir.js';
import { withDevSecrets } from '../config/dev-secrets.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { type CoreContext, createCoreContext } from '../context.js';
import { ensureInitialAdmin } from '../identity/initial-admin.js';
import { startBoss } from '../jobs/boss.js';
import { BossJobQueue } from '../jobs/queue.js';
import { JOBS } from '../jobs/registry.js';
import { createLogger, type Logger } from './logger.js';

export type ProcessRole = 'api' | 'worker' | 'all';

export interface Runtime {
  config: Config;
  ctx: CoreContext;
  boss: PgBoss;
  log: Logger;
  embedded: EmbeddedDatabase | null;
  /** Stops pg-boss (waiting for its jobs until `deadline`, epoch ms; 8 s without one), the pool and the embedded database. */
  close(deadline?: number): Promise<void>;
}

/** Milliseconds left until `deadline` (epoch ms), less `reserve`, and never below `floor`. */
export const timeLeft = (deadline: number, reserve = 0, floor = 250) => Math.max(floor, deadline - Date.now() - reserve);

export interface RuntimeOptions {
  role: ProcessRole;
  env?: Record<string, string | undefined>;
  /** Where a generated admin password is shown, once. */
  announce?: (message: string) => void;
}

/**
 * What every process does before serving: read and check settings, open the database (the embedded
 * one when DATABASE_URL is unset), apply migrations, start pg-boss and make sure every queue exists,
 * create the initial admin. API processes run pg-boss as a producer only (no schedules, no
 * maintenance); workers run it fully.
 */
export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  let config = withDevSecrets(loadConfig(opts.env ?? process.env));
  const log = createLogger({ level: config.LOG_LEVEL, name: `community-faq-${opts.role}` });
  let embedded: EmbeddedDatabase | null = null;
  if (!config.DATABASE_URL) {
    embedded = await openEmbeddedDatabase(join(ensureDataDir(config.DATA_DIR), 'db'));
    config = { ...config, DATABASE_URL: embedded.url };
    log.info({ owner: embedded.owner }, 'using the embedded database (PGlite)');
  }
  const pool = createPool({
    connectionString: config.DATABASE_URL as string,
    max: config.DATABASE_POOL_MAX,
    applicationName: `community-faq-${opts.role}`,
  });
  let closing = false;
  try {
    if (config.MIGRATE_ON_START) await runMigrations(pool);
    const boss = await startBoss(
      {
        connectionString: config.DATABASE_URL as string,
        schema: 'pgboss',
        max: config.JOB_QUEUE_POOL_MAX,
        application_name: `community-faq-${opts.role}-boss`,
        schedule: opts.role !== 'api',
        supervise: opts.role !== 'api',
        // How soon an expired job, or one whose worker stopped heartbeating (killed), is failed and retried.
        superviseIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS,
        monitorIntervalSeconds: config.JOB_SUPERVISE_INTERVAL_SECONDS,
      },
      JOBS,
      config,
      // Once the stop has begun, a job still running past its budget is failed by pg-boss after the
      // pool has closed ("Database connection is not opened"): expected then, and the job is retried
      // after its heartbeat lapses, so it is a warning, not an error an operator is paged for.
      (err) => (closing ? log.warn({ err }, 'pg-boss error while stopping') : log.error({ err }, 'pg-boss error')),
    );
    const ctx = createCoreContext({ config, log, pool, jobs: new BossJobQueue(boss, { batchMax: config.JOB_SEND_BATCH_MAX }) });
    // The API creates the first admin; a production worker without ADMIN_PASSWORD leaves it to the API
    // rather than refusing to start (the API refuses, naming the setting).
    const admin =
      opts.role === 'worker' && config.NODE_ENV === 'production' && !config.ADMIN_PASSWORD
        ? { created: false, email: config.ADMIN_EMAIL ?? '' }
        : await ensureInitialAdmin(ctx);
    if (admin.generatedPassword) {
      (opts.announce ?? ((m) => process.stderr.write(`${m}\n`)))(
        `Initial admin created: ${admin.email} / ${admin.generatedPassword} (shown once; set ADMIN_PASSWORD to choose it)`,
      );
    }
    return {
      config,
      ctx,
      boss,
      log,
      embedded,
      async close(deadline) {
        if (closing) return;
        closing = true;
        // The pool and the embedded database need a moment after pg-boss: it gets what is left but that.
        const timeout = deadline === undefined ? 8000 : timeLeft(deadline, 500);
        await boss.stop({ graceful: true, timeout, close: true }).catch((err) => log.error({ err }, 'pg-boss stop failed'));
        // pool.end() waits for every client to come back: a job still waiting on a row lock holds one.
        // By the deadline the process goes without it (the server ends that session with the connection).
        const ended = pool.end().catch(() => {});
        await (deadline === undefined ? ended : Promise.race([ended, new Promise((r) => setTimeout(r, timeLeft(deadline, 200)).unref())]));
        await embedded?.close();
      },
    };
  } catch (err) {
    await pool.end().catch(() => {});
    await embedded?.close();
    throw err;
  }
}
