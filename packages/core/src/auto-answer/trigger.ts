import { adminLogBy, writeAdminLog } from '../audit/index.js';
import { visiblePost } from '../community/view.js';
import type { CoreContext } from '../context.js';
import { invalidField } from '../errors/index.js';
import type { Actor } from '../shared/db.js';
import { autoAnswerJob } from './auto-answer-job.js';
import { runAutoAnswer, thresholdsOf } from './run.js';
import type { AutoAnswerQueued, RunReport } from './shape.js';
import { thresholdWhatIf } from './what-if.js';

/**
 * The admin trigger (POST /admin/community/auto-answer):
 *
 * - dryRun: every verdict the run would reach, plus the threshold what-if when thresholds are given;
 *   no claim, no provider call, no write (no admin-log row either: nothing changed). The thresholds
 *   are a dry run's only: any other run publishes by the configured ones (given, they are a 400).
 * - postId: that post answered now; the outcome is audit-logged (`auto_answer.run`, target the post).
 * - otherwise: a worker run is enqueued (`all` for every eligible post); the job and its admin-log row
 *   (`auto_answer.run_queued`, target the job id) commit together.
 */
export interface TriggerInput {
  dryRun?: boolean | undefined;
  postId?: string | undefined;
  all?: boolean | undefined;
  batchId?: string | undefined;
  approveThreshold?: number | undefined;
  suggestThreshold?: number | undefined;
}

export async function triggerAutoAnswer(
  ctx: CoreContext,
  actor: Actor & { ip?: string },
  input: TriggerInput,
): Promise<RunReport | AutoAnswerQueued> {
  // A post_id run used them to publish below the configured approve threshold, a queued run dropped them.
  if (!input.dryRun) {
    for (const field of ['approveThreshold', 'suggestThreshold'] as const)
      if (input[field] !== undefined) throw invalidField(`query.${field}`, 'applies only to a dry run (dry_run=true)');
  }
  const th = { approveThreshold: input.approveThreshold, suggestThreshold: input.suggestThreshold };
  const all = input.all === true;
  const post = input.postId ? await visiblePost(ctx.db, actor, input.postId) : null;

  if (input.dryRun) {
    const report = await runAutoAnswer(ctx, { trigger: 'dry_run', dryRun: true, postId: input.postId, all, batchId: input.batchId, ...th });
    const whatIf =
      input.approveThreshold !== undefined || input.suggestThreshold !== undefined
        ? await thresholdWhatIf(ctx, thresholdsOf(ctx, th), input.batchId)
        : undefined;
    return { ...report, ...(whatIf ? { whatIf } : {}) };
  }

  if (post) {
    const report = await runAutoAnswer(ctx, { trigger: 'admin', postId: post.id });
    const item = report.items[0];
    await writeAdminLog(ctx, {
      ...adminLogBy(actor),
      action: 'auto_answer.run',
      targetType: 'CommunityPost',
      targetId: post.id,
      details: {
        runId: report.runId,
        thresholds: report.thresholds,
        // not_eligible: the post is not open, or its AI answer is not null/escalated, or another run holds it.
        outcome: item?.outcome ?? 'not_eligible',
        verdict: item?.verdict ?? null,
        confidence: item?.confidence ?? null,
        source: item?.source ?? null,
        reason: item?.reason ?? null,
      },
      ...(post.batchId ? { batchId: post.batchId } : {}),
    });
    return report;
  }

  const batchId = input.batchId ?? null;
  const jobId = await ctx.db.transaction(async (tx) => {
    const id = await ctx.jobs.send(
      autoAnswerJob,
      { trigger: 'admin', all, requestedBy: actor.id, ...(input.batchId ? { batchId: input.batchId } : {}) },
      { tx },
    );
    await writeAdminLog(tx, {
      ...adminLogBy(actor),
      action: 'auto_answer.run_queued',
      targetType: 'Job',
      ...(id ? { targetId: id } : {}),
      // The program stays in the details: the query's batchId is not checked to exist (the run finds no posts then).
      details: { jobId: id, queue: autoAnswerJob.name, all, batchId },
    });
    return id;
  });
  return { queued: true, jobId, all, batchId };
}
