import { lexemeStatsJob, refreshLexemeStats } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const lexemeStatsHandler = defineHandler(lexemeStatsJob, async (ctx) => {
  await refreshLexemeStats(ctx);
});
