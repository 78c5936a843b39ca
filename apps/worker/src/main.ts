import { ConfigError, startRuntime } from '@cfaq/core';
import { startWorker } from './worker.js';

try {
  process.loadEnvFile();
} catch {
  /* no .env file */
}

/** Starts one worker process; run as many as you like. */
async function main() {
  const runtime = await startRuntime({ role: 'worker' });
  const worker = await startWorker(runtime.ctx, runtime.boss);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.log.info({ signal }, 'worker stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await worker.stop();
    await runtime.close();
    runtime.log.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('worker failed to start:', err);
  process.exit(1);
});
