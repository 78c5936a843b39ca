import { analyticsRollupJob, rollUpSearchLogs } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const analyticsRollupHandler = defineHandler(analyticsRollupJob, async (ctx) => {
  await rollUpSearchLogs(ctx);
});
