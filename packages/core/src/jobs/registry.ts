import { analyticsRollupJob } from '../analytics/job.js';
import { autoAnswerJob } from '../auto-answer/job.js';
import { escalationCheckJob } from '../community/escalation-job.js';
import { confIngestJob, confProcessMeetingJob } from '../conf/job.js';
import { embeddingsBackfillJob, embedRowJob } from '../embeddings/job.js';
import { faqAuditJob } from '../faq-audit/job.js';
import { freshnessCheckJob } from '../faqs/job.js';
import { promotionCycleJob } from '../faqs/promotion-job.js';
import { retentionJob } from '../retention/job.js';
import { lexemeStatsJob } from '../search/lexeme-stats.js';
import type { AnyJobDefinition } from './contract.js';

/**
 * Every queue the system has. The worker creates each with its policy and registers its schedule;
 * later features append their job definitions here.
 */
export const JOBS: readonly AnyJobDefinition[] = [
  retentionJob,
  freshnessCheckJob,
  embedRowJob,
  lexemeStatsJob,
  confIngestJob,
  confProcessMeetingJob,
  promotionCycleJob,
  escalationCheckJob,
  faqAuditJob,
  autoAnswerJob,
  embeddingsBackfillJob,
  analyticsRollupJob,
];
