import { ConfigError, startRuntime } from '@cfaq/core';
import { buildApp } from './app.js';

try {
  process.loadEnvFile();
} catch {
  /* no .env file */
}

/** Starts the API alone (operators scale it apart from workers). */
async function main() {
  const runtime = await startRuntime({ role: 'api' });
  const app = await buildApp({ ctx: runtime.ctx });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.log.info({ signal }, 'api stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await app.close();
    await runtime.close();
    runtime.log.info('api stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.listen({ host: runtime.config.HOST, port: runtime.config.PORT });
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('api failed to start:', err);
  process.exit(1);
});
