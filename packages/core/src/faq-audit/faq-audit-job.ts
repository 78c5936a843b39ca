import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { runFaqAudit } from './run.js';

/** The FAQ audit (faq-audit/run.ts): every FAQ_AUDIT_INTERVAL_HOURS (6). */
export const faqAuditJob = defineJob({
  name: 'content.faq-audit',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 1, expireInSeconds: 30 * 60 },
  schedule: (config) => ({ everyMinutes: config.FAQ_AUDIT_INTERVAL_HOURS * 60 }),
  // Stopped part way (the worker is stopping), the job fails, and its retry audits the FAQs this try
  // did not reach: they are still the oldest checked. Left running, a run of slow provider calls outlived
  // the stop and was failed by pg-boss after its connection had closed (an error in the log).
  handler: async (ctx, _p, meta) => {
    const result = await runFaqAudit(ctx, { signal: meta.signal });
    if (meta.signal?.aborted) throw new Error(`FAQ audit run ${result.runId} stopped after ${result.items.length} FAQs; the retry goes on`);
    return result;
  },
});
