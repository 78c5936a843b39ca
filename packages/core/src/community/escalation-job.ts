import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { runEscalationCheck } from './escalation.js';

/** Escalation of unanswered posts (community/escalation.ts): both checks every UNANSWERED_ESCALATION_CHECK_MINUTES (60). */
export const escalationCheckJob = defineJob({
  name: 'community.escalation-check',
  payload: T.Object({}),
  policy: { ...DEFAULT_POLICY, retryLimit: 2, expireInSeconds: 10 * 60 },
  schedule: (config) => ({ everyMinutes: config.UNANSWERED_ESCALATION_CHECK_MINUTES }),
  handler: (ctx) => runEscalationCheck(ctx),
});
