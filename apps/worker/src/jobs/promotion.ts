import { promotionCycleJob, runPromotionCycle } from '@cfaq/core';
import { defineHandler } from '../handler.js';

export const promotionHandler = defineHandler(promotionCycleJob, (ctx) => runPromotionCycle(ctx));
