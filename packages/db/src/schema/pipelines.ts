import { boolean, index, jsonb, pgTable, real, text, uuid } from 'drizzle-orm/pg-core';
import { id, tstz } from './columns.js';
import { pipelineName, pipelineTargetModel, pipelineVerdict } from './enums.js';
import { users } from './identity.js';
import { batches } from './programs.js';

/** Auto-answer and audit log; rows older than PIPELINE_RESULT_TTL_DAYS are deleted by the retention job. */
export const pipelineResults = pgTable(
  'pipeline_results',
  {
    id: id(),
    pipeline: pipelineName().notNull(),
    targetModel: pipelineTargetModel().notNull(),
    targetId: uuid().notNull(),
    targetTitle: text().notNull(),
    batchId: uuid().references(() => batches.id),
    score: real(),
    confidence: real(),
    verdict: pipelineVerdict().notNull(),
    /** True when the verdict is neither approved nor correct (skipped is not flagged either). */
    flagged: boolean().notNull(),
    sources: text().array().notNull().default([]),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    reviewAction: text(),
    reviewedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: tstz('reviewed_at'),
    checkedAt: tstz('checked_at').notNull().defaultNow(),
  },
  (t) => [
    index('pipeline_results_pipeline_flagged_checked_idx').on(t.pipeline, t.flagged, t.checkedAt),
    index('pipeline_results_target_pipeline_idx').on(t.targetId, t.pipeline),
    index('pipeline_results_checked_at_idx').on(t.checkedAt),
  ],
);
