import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { rollUpCommunity } from './community-rollup.js';
import { compactCounts } from './counts.js';
import { rollUpSearchLogs } from './rollup.js';

/**
 * Rolls complete days of search logs (rollup.ts) and of posts, comments and accounts, plus the days
 * writes have changed since (community-rollup.ts), up into the daily tables the dashboards read, and
 * folds the appended account and points counts (counts.ts).
 */
export const analyticsRollupJob = defineJob({
  name: 'analytics.rollup',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 2, expireInSeconds: 15 * 60 },
  schedule: (config) => ({ everyMinutes: config.ANALYTICS_ROLLUP_INTERVAL_MINUTES }),
  runOnStart: true,
  handler: async (ctx) => {
    await rollUpSearchLogs(ctx);
    await rollUpCommunity(ctx);
    await compactCounts(ctx);
  },
});
