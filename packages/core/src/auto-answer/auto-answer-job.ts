import { Type as T } from '@sinclair/typebox';
import { DEFAULT_POLICY, defineJob } from '../jobs/contract.js';
import { isUuid } from '../shared/uuid.js';
import { runAutoAnswer } from './run.js';

/**
 * The auto-answer run in the worker: scheduled every AUTO_ANSWER_INTERVAL_HOURS (empty payload), or
 * enqueued by the admin trigger (`all`, `batchId`). Two of these running at once never answer one
 * post twice (claim.ts).
 */
export const autoAnswerJob = defineJob({
  name: 'pipeline.auto-answer',
  payload: T.Object({
    trigger: T.Optional(T.Union([T.Literal('schedule'), T.Literal('admin')])),
    all: T.Optional(T.Boolean()),
    batchId: T.Optional(T.String({ format: 'uuid' })),
    postId: T.Optional(T.String({ format: 'uuid' })),
    requestedBy: T.Optional(T.String({ format: 'uuid' })),
  }),
  policy: { ...DEFAULT_POLICY, retryLimit: 1, retryDelaySeconds: 60, expireInSeconds: 60 * 60 },
  schedule: (config) => ({ everyMinutes: config.AUTO_ANSWER_INTERVAL_HOURS * 60 }),
  // The job's id is the run's claim: a retry after a stop mid-run takes back what the stopped try claimed.
  // The job's signal (pg-boss aborts it when the worker stops or the job is lost) stops the run between
  // posts and batches.
  handler: async (ctx, p, meta) => {
    const report = await runAutoAnswer(ctx, {
      trigger: p.trigger ?? 'schedule',
      all: p.all ?? false,
      batchId: p.batchId,
      postId: p.postId,
      runId: isUuid(meta.id) ? meta.id : undefined,
      signal: meta.signal,
    });
    // Stopped part way (the worker is stopping): the job fails, so its retry (the same job id, so the
    // same claim) takes back the posts this try claimed and did not answer; completed, it would leave
    // them claimed until the lease and the cooldown passed.
    if (meta.signal?.aborted) throw new Error(`auto-answer run ${report.runId} stopped after ${report.processed} posts; the retry goes on`);
    return report;
  },
});
