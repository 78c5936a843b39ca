import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { runFaqAudit } from './run.js';

/** The FAQ audit (faq-audit/run.ts): every FAQ_AUDIT_INTERVAL_HOURS (6). */
export const faqAuditJob = defineJob({
  name: 'content.faq-audit',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 1, expireInSeconds: 30 * 60 },
  schedule: (config) => ({ everyMinutes: config.FAQ_AUDIT_INTERVAL_HOURS * 60 }),
  handler: (ctx) => runFaqAudit(ctx),
});
