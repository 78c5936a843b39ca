import { embedRow, embedRowJob } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const embedRowHandler = defineHandler(embedRowJob, (ctx, payload) => embedRow(ctx, payload), 20);
