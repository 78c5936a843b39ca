import { retentionJob, runRetention } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const retentionHandler = defineHandler(retentionJob, (ctx) => runRetention(ctx));
