import { backfillEmbeddings, embeddingsBackfillJob } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const embeddingsBackfillHandler = defineHandler(embeddingsBackfillJob, async (ctx) => {
  await backfillEmbeddings(ctx);
});
