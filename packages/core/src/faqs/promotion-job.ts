import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { runPromotionCycle } from './promotion.js';

/** The promotion cycle (faqs/promotion.ts): every PROMOTION_INTERVAL_MINUTES (15). */
export const promotionCycleJob = defineJob({
  name: 'content.promotion-cycle',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 2, expireInSeconds: 10 * 60 },
  schedule: (config) => ({ everyMinutes: config.PROMOTION_INTERVAL_MINUTES }),
  handler: (ctx) => runPromotionCycle(ctx),
});
