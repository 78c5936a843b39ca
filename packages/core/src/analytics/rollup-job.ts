import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { rollUpSearchLogs } from './rollup.js';

/** Rolls complete days of search logs up into the daily tables the dashboards read (rollup.ts). */
export const analyticsRollupJob = defineJob({
  name: 'analytics.rollup',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 2, expireInSeconds: 15 * 60 },
  schedule: (config) => ({ everyMinutes: config.ANALYTICS_ROLLUP_INTERVAL_MINUTES }),
  runOnStart: true,
  handler: async (ctx) => {
    await rollUpSearchLogs(ctx);
  },
});
