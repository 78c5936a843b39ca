import { randomUUID } from 'node:crypto';
import { resolveAi } from '../ai/settings.js';
import type { CoreContext } from '../context.js';
import { invalidField } from '../errors/index.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { applyDecision } from './apply.js';
import { type ClaimedPost, claimPosts, previewEligible } from './claim.js';
import { decidePost } from './decide.js';
import { sensitiveMatcher } from './sensitive.js';
import type { RunItem, RunReport, Thresholds } from './shape.js';

/**
 * The auto-answer run (schedule, admin trigger, dry run):
 *
 *   runAutoAnswer(ctx, { trigger: 'schedule' })                    // up to AUTO_ANSWER_BATCH_SIZE posts
 *   runAutoAnswer(ctx, { trigger: 'admin', all: true })            // every eligible post, batch after batch
 *   runAutoAnswer(ctx, { trigger: 'admin', postId })               // one post, age and cooldown ignored
 *   runAutoAnswer(ctx, { dryRun: true, approveThreshold: 0.9 })    // verdicts only: no claim, no write, no provider call
 *
 * Posts are claimed atomically (claim.ts), decided with at most AUTO_ANSWER_CONCURRENCY provider
 * calls in flight, and each decision is written in its own transaction (apply.ts). One post's failure
 * is logged and counted; the run goes on.
 *
 * A run tries each post at most once: an `all` run never claims again a post it has claimed (with
 * AUTO_ANSWER_COOLDOWN_HOURS=0 a post it escalated is at once eligible again), so it ends once every
 * eligible post was tried. `signal` (the job's, aborted when the worker stops or loses the job) stops
 * the run between posts and between batches: posts it claimed and did not start keep their claim,
 * which the job's retry takes back (claim.ts, ownClaim).
 */
export interface RunOptions {
  trigger: 'schedule' | 'admin' | 'dry_run';
  dryRun?: boolean;
  postId?: string | undefined;
  all?: boolean;
  batchId?: string | undefined;
  approveThreshold?: number | undefined;
  suggestThreshold?: number | undefined;
  signal?: AbortSignal;
  /** The job's id when a job runs it: a retry of the job takes back the posts its earlier try claimed. */
  runId?: string | undefined;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function thresholdsOf(
  ctx: Pick<CoreContext, 'config'>,
  o: { approveThreshold?: number | undefined; suggestThreshold?: number | undefined },
): Thresholds {
  const t = {
    approve: o.approveThreshold ?? ctx.config.AUTO_ANSWER_APPROVE_THRESHOLD,
    suggest: o.suggestThreshold ?? ctx.config.AUTO_ANSWER_SUGGEST_THRESHOLD,
  };
  // The same rule the settings obey at start: a suggest band above the approve band has no meaning.
  if (t.suggest > t.approve) {
    const field = o.suggestThreshold !== undefined ? 'query.suggestThreshold' : 'query.approveThreshold';
    throw invalidField(field, `the suggest threshold (${t.suggest}) must not exceed the approve threshold (${t.approve})`);
  }
  return t;
}

export async function runAutoAnswer(ctx: CoreContext, opts: RunOptions): Promise<RunReport> {
  const started = performance.now();
  const runId = opts.runId ?? randomUUID();
  const dryRun = opts.dryRun === true || opts.trigger === 'dry_run';
  const thresholds = thresholdsOf(ctx, opts);
  const resolved = await resolveAi(ctx);
  const sensitive = sensitiveMatcher(ctx.config.AUTO_ANSWER_SENSITIVE_TOPICS);
  const batchSize = ctx.config.AUTO_ANSWER_BATCH_SIZE;
  const filter = { batchId: opts.batchId, postId: opts.postId, ignoreAgeAndCooldown: !!opts.postId, ownClaim: opts.runId };
  const counts = { approved: 0, suggested: 0, escalated: 0, skipped: 0, errors: 0 };
  const items: RunItem[] = [];
  /** Every post this run claimed: never claimed again by it. */
  const claimed: string[] = [];
  /** Posts claimed but not started because the run was stopped (left to the job's retry). */
  let leftClaimed = 0;

  const handle = async (post: ClaimedPost): Promise<void> => {
    if (opts.signal?.aborted) {
      leftClaimed++;
      return;
    }
    try {
      const d = await decidePost(ctx, post, { thresholds, sensitive, resolved, dryRun });
      const outcome = dryRun ? 'dry_run' : await applyDecision(ctx, d, runId, post.authorId, opts.trigger);
      if (outcome === 'skipped') counts.skipped++;
      else counts[d.verdict]++;
      logPipelineStep(ctx.log, {
        action: 'auto_answer',
        id: post.id,
        conf: d.confidence,
        verdict: d.verdict,
        extra: { dry_run: dryRun || undefined, skipped: outcome === 'skipped' ? 'changed' : undefined },
      });
      items.push({
        postId: d.postId,
        title: d.title,
        batchId: d.batchId,
        verdict: d.verdict,
        confidence: d.confidence,
        source: d.source,
        sources: d.sources,
        answer: d.answer,
        reason: d.reason,
        provider: (d.metadata.provider as string | null) ?? null,
        model: (d.metadata.model as string | null) ?? null,
        outcome,
      });
    } catch (err) {
      counts.errors++;
      ctx.log.error({ err, postId: post.id }, '[pipeline] auto_answer step failed');
      if (!dryRun)
        await ctx.pool
          .query('UPDATE community_posts SET ai_answer_claim = NULL WHERE id = $1 AND ai_answer_claim = $2', [post.id, runId])
          .catch(() => undefined);
      items.push({
        postId: post.id,
        title: post.title,
        batchId: post.batchId,
        verdict: 'escalated',
        confidence: null,
        source: null,
        sources: [],
        answer: null,
        reason: err instanceof Error ? err.message : String(err),
        provider: null,
        model: null,
        outcome: 'error',
      });
    }
  };

  if (dryRun) {
    const posts = await previewEligible(ctx, { ...filter, limit: opts.all ? 10_000 : opts.postId ? 1 : batchSize });
    await mapBounded(posts, ctx.config.AUTO_ANSWER_CONCURRENCY, handle);
  } else {
    for (;;) {
      if (opts.signal?.aborted) break;
      const posts = await claimPosts(ctx, runId, { ...filter, exclude: claimed, limit: opts.postId ? 1 : batchSize });
      for (const p of posts) claimed.push(p.id);
      await mapBounded(posts, ctx.config.AUTO_ANSWER_CONCURRENCY, handle);
      if (!opts.all || opts.postId || posts.length < batchSize) break;
    }
  }
  const stopped = opts.signal?.aborted === true;
  if (stopped) ctx.log.warn({ runId, processed: items.length, leftClaimed }, '[pipeline] auto_answer run stopped');
  const report: RunReport = {
    runId,
    dryRun,
    thresholds,
    processed: items.length,
    counts,
    items,
    durationMs: Math.round(performance.now() - started),
  };
  ctx.log.info(
    {
      runId,
      trigger: opts.trigger,
      dryRun,
      processed: report.processed,
      counts,
      stopped: stopped || undefined,
      durationMs: report.durationMs,
    },
    '[pipeline] auto_answer run finished',
  );
  return report;
}
