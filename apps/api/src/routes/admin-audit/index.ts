import { auditStats, listAuditResults, runFaqAudit } from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import { AuditResult, ResultsQuery, RunQuery, RunResult, Stats, StatsQuery } from './schemas.js';

const tags = ['admin: pipelines'];

const TABLE =
  'Verdicts: score >= FAQ_AUDIT_FLAG_THRESHOLD (0.80) correct; 0.60 (FAQ_AUDIT_CONTRADICTION_THRESHOLD) to below it drift_detected (flagged); below 0.60 contradiction (flagged); ' +
  'no knowledge context with the FAQ older than FAQ_AUDIT_STALE_DAYS and never verified: stale (flagged); AI confidence < 0.35, no context otherwise, or a provider failure: skipped (not flagged). ' +
  'The spec lists FAQ_AUDIT_FLAG_THRESHOLD at 0.65 ("score below this flags") but its table flags every score below 0.80: the setting is read as that boundary and defaults to 0.80.';

/** The FAQ audit's admin routes. */
export const adminAuditRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/admin/audit/stats',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'FAQ audit statistics',
        description: `Counts per verdict within the range and program, open audit flags, the last run. ${TABLE}`,
        querystring: StatsQuery,
        response: { 200: Stats },
      },
    },
    async (request) => auditStats(ctx, request.query),
  );

  app.get(
    '/admin/audit/results',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'FAQ audit results (PipelineResult, pipeline faq_audit)',
        description: `Newest first; filters verdict, flagged, from/to (checkedAt), batchId (program), faqId. Flagged results carry their evidence: the conflicting passages, each checked to occur verbatim in its source. ${TABLE}`,
        querystring: ResultsQuery,
        response: { 200: listOf(AuditResult) },
      },
    },
    async (request) => listAuditResults(ctx, request.query),
  );

  app.post(
    '/admin/audit/faqs',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Run the FAQ audit now',
        description:
          'The scheduled batch (approved FAQs, never checked first, then oldest lastCheckedAt, at most FAQ_AUDIT_BATCH_SIZE), or one FAQ with faq_id. ' +
          'dry_run=true computes the verdicts and writes nothing (no FAQ change, no PipelineResult; provider token usage is still counted). ' +
          TABLE,
        querystring: RunQuery,
        response: { 200: RunResult, ...problemResponses(404) },
      },
    },
    async (request) =>
      runFaqAudit(ctx, {
        dryRun: request.query.dry_run ?? false,
        actor: signedIn(request),
        ...(request.query.faq_id ? { faqId: request.query.faq_id } : {}),
      }),
  );
};
