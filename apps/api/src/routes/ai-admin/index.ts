import {
  AiConfigPatch,
  calibration,
  getAiConfig,
  listAiProviders,
  listReviewQueue,
  resetAiUsage,
  revealApiKey,
  reviewAiAnswer,
  testAiProviders,
  triggerAutoAnswer,
  updateAiConfig,
} from '@cfaq/core';
import { signedIn } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import { listOf } from '../../lib/schemas.js';
import type { RoutePlugin } from '../../lib/types.js';
import {
  AiConfig,
  Calibration,
  CalibrationQuery,
  PostIdParams,
  ProviderParams,
  Providers,
  ProviderTest,
  Queued,
  QueueItem,
  QueueQuery,
  ResetUsage,
  RevealedKey,
  ReviewBody,
  ReviewResult,
  RunReport,
  TriggerQuery,
} from './schemas.js';

const tags = ['admin: auto-answer'];
const aiTags = ['admin: ai'];
const truthy = (v: boolean | undefined) => v === true;

const TRIGGER_NOTE =
  'dry_run=true: every verdict the run would reach for the eligible posts (or post_id), computed without claiming posts, without ' +
  'calling an AI provider and without writing anything (no post change, no PipelineResult, no notification); approveThreshold and ' +
  'suggestThreshold apply to those verdicts and add `whatIf`: how many stored auto-answer results would change verdict (without ' +
  'dry_run=true they are a 400: other runs publish by the configured thresholds). ' +
  'post_id (without dry_run): answers that one post now, ignoring its age and the cooldown (it must still be open with no AI ' +
  'answer or an escalated one), 200 with its verdict. Otherwise: enqueues a run in the worker (AUTO_ANSWER_BATCH_SIZE posts, or ' +
  'every eligible post with all=true), 202. Two runs never answer one post twice. Audit-logged except a dry run: a post_id run ' +
  'as auto_answer.run with its outcome, an enqueued run as auto_answer.run_queued with the job id.';
const REVIEW_NOTE =
  'approve (from suggested, escalated or rejected): published, aiAnswerStatus approved, post answered, author notified (notification ' +
  'and tea drop); manualAnswer replaces the text (aiAnswerSource manual). reject (from suggested, escalated or approved): aiAnswerStatus ' +
  'rejected, unpublished, the post is not auto-answered again until its title or body changes. escalate (from suggested, escalated, ' +
  'approved or rejected): aiAnswerStatus escalated with `reason` (from escalated: the escalation stands, a reason given replaces ' +
  'the old one). Each sets aiAnswerReviewedAt/By and is audit-logged; other moves are 422.';

/** Admin routes of the auto-answer pipeline and the AI provider configuration (admin only; writes audit-logged). */
export const aiAdminRoutes: RoutePlugin = async (app) => {
  const { ctx } = app;

  app.get(
    '/admin/auto-answer/queue',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Pending review queue: suggested and escalated AI answers with confidence, source, sources and reason',
        querystring: QueueQuery,
        response: { 200: listOf(QueueItem) },
      },
    },
    async (request) => listReviewQueue(ctx, request.query),
  );

  app.get(
    '/admin/auto-answer/calibration',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Per confidence band: published AI answers and how many were later demoted (author: not answering, or net votes <= -2)',
        description:
          'Bands 0.05 wide, from inclusive, to exclusive (the last includes 1.00); the confidence is rounded to 4 decimals before ' +
          'banding. Answers published without a confidence (a manual answer an admin approved) are in no band: `unscored` counts them.',
        querystring: CalibrationQuery,
        response: { 200: Calibration },
      },
    },
    async (request) => calibration(ctx, request.query),
  );

  app.post(
    '/admin/community/auto-answer',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Run the auto-answer pipeline: dry run, one post, or a worker run',
        description: TRIGGER_NOTE,
        querystring: TriggerQuery,
        response: { 200: RunReport, 202: Queued, ...problemResponses(404, 422) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const r = await triggerAutoAnswer(ctx, signedIn(request), {
        dryRun: truthy(q.dry_run) || truthy(q.dryRun),
        postId: q.post_id ?? q.postId,
        all: truthy(q.all),
        batchId: q.batchId,
        approveThreshold: q.approveThreshold,
        suggestThreshold: q.suggestThreshold,
      });
      return 'queued' in r ? reply.code(202).send(r) : r;
    },
  );

  app.patch(
    '/admin/auto-answer/:postId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Review an AI answer: approve, reject or escalate',
        description: REVIEW_NOTE,
        params: PostIdParams,
        body: ReviewBody,
        response: { 200: ReviewResult, ...problemResponses(404, 422) },
      },
    },
    async (request) => reviewAiAnswer(ctx, signedIn(request), request.params.postId, request.body, request.ip),
  );

  app.get(
    '/admin/ai/config',
    {
      config: { access: 'admin' },
      schema: {
        tags: aiTags,
        summary: 'AI configuration: providers and models per pipeline, key status (last four characters only), base URLs, usage',
        response: { 200: AiConfig },
      },
    },
    async () => getAiConfig(ctx),
  );

  app.patch(
    '/admin/ai/config',
    {
      config: { access: 'admin' },
      schema: {
        tags: aiTags,
        summary: 'Change the AI configuration (overrides the environment; null clears a field)',
        description:
          'API keys are write-only: stored AES-256-GCM encrypted, shown afterwards only as keyLast4; GET /admin/ai/config/api-key/:provider reveals one. Audit-logged without key values.',
        body: AiConfigPatch,
        response: { 200: AiConfig },
      },
    },
    async (request) => updateAiConfig(ctx, signedIn(request), request.body),
  );

  app.post(
    '/admin/ai/config/reset-usage',
    {
      config: { access: 'admin' },
      schema: {
        tags: aiTags,
        summary: 'Reset the AI usage counters (audit-logged)',
        response: { 200: ResetUsage },
      },
    },
    async (request) => resetAiUsage(ctx, signedIn(request)),
  );

  app.get(
    '/admin/ai/providers',
    {
      config: { access: 'admin' },
      schema: {
        tags: aiTags,
        summary: 'Providers: configured or not, detection order, the active provider and model per pipeline',
        response: { 200: Providers },
      },
    },
    async () => listAiProviders(ctx),
  );

  app.get(
    '/admin/ai/providers/test',
    {
      config: { access: 'admin' },
      schema: {
        tags: aiTags,
        summary:
          'A real minimal structured round trip to every configured provider, once per model a pipeline uses on it (else its default): ok, latency, error',
        response: { 200: ProviderTest },
      },
    },
    async () => testAiProviders(ctx),
  );

  app.get(
    '/admin/ai/config/api-key/:provider',
    {
      config: { access: 'admin' },
      schema: {
        tags: aiTags,
        summary: 'Reveal a stored API key (the only route that does; audit-logged). 404 when none is stored.',
        params: ProviderParams,
        response: { 200: RevealedKey, ...problemResponses(404) },
      },
    },
    async (request) => revealApiKey(ctx, signedIn(request), request.params.provider),
  );
};
