import { buildApp, listen } from '@cfaq/api';
import { runMain } from '@cfaq/core';
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
  return async () => {
    await app.close();
    await worker.stop();
  };
});
