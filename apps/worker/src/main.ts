import { runMain, timeLeft } from '@cfaq/core';
import { startWorker } from './worker.js';

/** Starts one worker process; run as many as you like. */
runMain('worker', async (runtime) => {
  const worker = await startWorker(runtime.ctx, runtime.boss);
  return (deadline) => worker.stop(timeLeft(deadline, 1500));
});
