import { analyticsRollupJob } from '../analytics/rollup-job.js';
import { autoAnswerJob } from '../auto-answer/auto-answer-job.js';
import { escalationCheckJob } from '../community/escalation-job.js';
import { confExtractInsightsJob } from '../conf/extract-insights-job.js';
import { confIngestJob } from '../conf/ingest-job.js';
import { confProcessMeetingJob } from '../conf/process-meeting-job.js';
import { embeddingsBackfillJob } from '../embeddings/backfill-job.js';
import { embedRowJob } from '../embeddings/embed-row-job.js';
import { faqAuditJob } from '../faq-audit/faq-audit-job.js';
import { freshnessCheckJob } from '../faqs/freshness-job.js';
import { promotionCycleJob } from '../faqs/promotion-job.js';
import { retentionJob } from '../retention/retention-job.js';
import { lexemeStatsJob } from '../search/lexeme-stats-job.js';
import type { AnyJobDefinition } from './contract.js';

/**
 * The one registration list: every job the system has. Each process creates the queues from it (with
 * their policies); the worker consumes every one of them and registers their schedules. A new job is
 * its module (`<area>/<name>-job.ts`) plus one line here.
 */
export const JOBS: readonly AnyJobDefinition[] = [
  retentionJob,
  freshnessCheckJob,
  embedRowJob,
  lexemeStatsJob,
  confIngestJob,
  confProcessMeetingJob,
  confExtractInsightsJob,
  promotionCycleJob,
  escalationCheckJob,
  faqAuditJob,
  autoAnswerJob,
  embeddingsBackfillJob,
  analyticsRollupJob,
];
