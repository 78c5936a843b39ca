import { buildApp, listen } from '@cfaq/api';
import { runMain, timeLeft } from '@cfaq/core';
import { startWorker } from '@cfaq/worker';

/**
 * The README's main command: API and worker in one process. Without DATABASE_URL it runs on the
 * embedded PostgreSQL (PGlite + pgvector) under DATA_DIR; with it, against that server. Separate
 * processes: `npm run start:api` and `npm run start:worker`.
 */
runMain('all', async (runtime) => {
  const worker = await startWorker(runtime.ctx, runtime.boss);
  const app = await buildApp({ ctx: runtime.ctx });
  await listen(app, runtime.config);
  return async (deadline) => {
    await app.close();
    // What is left of the stop's time, less a second and a half for pg-boss, the pool and the database.
    await worker.stop(timeLeft(deadline, 1500));
  };
});
