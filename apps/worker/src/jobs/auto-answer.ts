import { autoAnswerJob, runAutoAnswer } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const autoAnswerHandler = defineHandler(autoAnswerJob, (ctx, p) =>
  runAutoAnswer(ctx, { trigger: p.trigger ?? 'schedule', all: p.all ?? false, batchId: p.batchId, postId: p.postId }),
);
