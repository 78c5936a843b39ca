import { runMain } from '@cfaq/core';
import { buildApp, listen } from './app.js';

/** Starts the API alone (operators scale it apart from workers). */
runMain('api', async (runtime) => {
  const app = await buildApp({ ctx: runtime.ctx });
  await listen(app, runtime.config);
  return () => app.close();
});
