import { escalationCheckJob, runEscalationCheck } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const escalationHandler = defineHandler(escalationCheckJob, (ctx) => runEscalationCheck(ctx));
