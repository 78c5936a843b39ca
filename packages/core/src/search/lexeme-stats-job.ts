import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { refreshLexemeStats } from './lexeme-stats.js';

/** Autovacuum's ANALYZE moves the statistics as the tables change; the copy follows on this interval. */
export const lexemeStatsJob = defineJob({
  name: 'search.lexeme-stats',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 2, expireInSeconds: 5 * 60 },
  schedule: (config) => ({ everyMinutes: config.SEARCH_STATS_REFRESH_MINUTES }),
  runOnStart: true,
  handler: async (ctx) => {
    await refreshLexemeStats(ctx);
  },
});
