import { buildApp } from '@cfaq/api';
import { ConfigError, startRuntime } from '@cfaq/core';
import { startWorker } from '@cfaq/worker';

try {
  process.loadEnvFile();
} catch {
  /* no .env file */
}

/**
 * The README's main command: API and worker in one process. Without DATABASE_URL it runs on the
 * embedded PostgreSQL (PGlite + pgvector) under DATA_DIR; with it, against that server. Separate
 * processes: `npm run start:api` and `npm run start:worker`.
 */
async function main() {
  const runtime = await startRuntime({ role: 'all' });
  const worker = await startWorker(runtime.ctx, runtime.boss);
  const app = await buildApp({ ctx: runtime.ctx });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.log.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await app.close();
    await worker.stop();
    await runtime.close();
    runtime.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.listen({ host: runtime.config.HOST, port: runtime.config.PORT });
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('failed to start:', err);
  process.exit(1);
});
