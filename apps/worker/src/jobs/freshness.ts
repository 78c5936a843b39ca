import { freshnessCheckJob, runFreshnessCheck } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const freshnessHandler = defineHandler(freshnessCheckJob, (ctx) => runFreshnessCheck(ctx));
