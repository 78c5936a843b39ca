import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { runRetention } from './run.js';

export const retentionJob = defineJob({
  name: 'maintenance.retention',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 2, expireInSeconds: 30 * 60 },
  schedule: (config) => ({ everyMinutes: config.RETENTION_INTERVAL_HOURS * 60 }),
  handler: (ctx) => runRetention(ctx),
});
