import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { runFreshnessCheck } from './review.js';

/**
 * The spec's "FAQ freshness review": flags non-evergreen FAQs past their review interval and
 * escalates reviews left unresolved for FAQ_ESCALATION_DAYS. Daily, at FAQ_FRESHNESS_CRON_SCHEDULE
 * (06:00 UTC by default; the spec's 24-hour interval is the same cadence).
 */
export const freshnessCheckJob = defineJob({
  name: 'content.freshness-check',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 2, expireInSeconds: 15 * 60 },
  schedule: (config) => ({ cron: config.FAQ_FRESHNESS_CRON_SCHEDULE }),
  handler: (ctx) => runFreshnessCheck(ctx),
});
