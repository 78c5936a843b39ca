import type { AnyJobHandler } from '../handler.js';
import { analyticsRollupHandler } from './analytics-rollup.js';
import { autoAnswerHandler } from './auto-answer.js';
import { confIngestHandler } from './conf-ingest.js';
import { confProcessMeetingHandler } from './conf-process-meeting.js';
import { embedRowHandler } from './embed-row.js';
import { embeddingsBackfillHandler } from './embeddings-backfill.js';
import { escalationHandler } from './escalation.js';
import { faqAuditHandler } from './faq-audit.js';
import { freshnessHandler } from './freshness.js';
import { lexemeStatsHandler } from './lexeme-stats.js';
import { promotionHandler } from './promotion.js';
import { retentionHandler } from './retention.js';

/** The worker's registration list: one handler per queue in core's JOBS. */
export const HANDLERS: readonly AnyJobHandler[] = [
  retentionHandler,
  freshnessHandler,
  embedRowHandler,
  lexemeStatsHandler,
  embeddingsBackfillHandler,
  confIngestHandler,
  confProcessMeetingHandler,
  promotionHandler,
  escalationHandler,
  faqAuditHandler,
  autoAnswerHandler,
  analyticsRollupHandler,
];
