import { runMain } from '@cfaq/core';
import { buildApp } from './app.js';

/** Starts the API alone (operators scale it apart from workers). */
runMain('api', async (runtime) => {
  const app = await buildApp({ ctx: runtime.ctx });
  await app.listen({ host: runtime.config.HOST, port: runtime.config.PORT });
  return () => app.close();
});
