import type { CoreContext } from '../context.js';

/**
 * Eligibility (spec): status open, aiAnswerStatus null or escalated (by the pipeline, not by staff), at least
 * AUTO_ANSWER_MIN_POST_AGE_HOURS old, no attempt within AUTO_ANSWER_COOLDOWN_HOURS, not deleted, in a
 * live program. Claiming is one UPDATE over `FOR UPDATE SKIP LOCKED` rows that stamps
 * ai_answer_attempted_at and a run id and adds 1 to aiAnswerAttempts, so two workers (or a schedule
 * and an admin run) never take the same post: the second sees the stamp and skips it. A claim older
 * than CLAIM_LEASE_MINUTES counts as abandoned (a crashed worker, or a stopped run whose job has no
 * retry left): any run takes it then, whatever the cooldown, and it stays one attempt.
 */
export const CLAIM_LEASE_MINUTES = 15;

export interface ClaimFilter {
  batchId?: string | undefined;
  postId?: string | undefined;
  /** An admin run on one post skips the age and cooldown rules (not the state rules). */
  ignoreAgeAndCooldown?: boolean;
  /**
   * The run's own claim (its job's id): posts an earlier try of the same job claimed and never finished
   * (the worker stopped mid-run) are taken back, past the lease and the cooldown their claim started.
   */
  ownClaim?: string | undefined;
  /**
   * Posts the run has already claimed: an `all` run claims batch after batch, and with a cooldown of 0
   * (or a cooldown shorter than the run) a post it escalated is eligible again at once; without this
   * the run would take it again and again, and never end while the provider kept declining.
   */
  exclude?: readonly string[];
  limit: number;
}

export interface ClaimedPost {
  id: string;
  batchId: string;
  title: string;
  body: string;
  authorId: string | null;
  aiAnswerStatus: string | null;
  attempts: number;
}

function eligibleWhere(p: string, f: ClaimFilter, params: unknown[], now: Date, ctx: Pick<CoreContext, 'config'>): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const own = f.ownClaim ? ` OR ${p}.ai_answer_claim = ${add(f.ownClaim)}` : '';
  const conds = [
    `${p}.status = 'open'`,
    `${p}.deleted_at IS NULL`,
    // Escalated by the pipeline itself: tried again after the cooldown (the spec's "null or escalated").
    // Escalated by staff (reviewed): a human takes it, as with a rejected answer, until its text changes
    // or an admin runs the pipeline on that one post by name.
    f.postId
      ? `(${p}.ai_answer_status IS NULL OR ${p}.ai_answer_status = 'escalated')`
      : `(${p}.ai_answer_status IS NULL OR (${p}.ai_answer_status = 'escalated' AND ${p}.ai_answer_reviewed_at IS NULL))`,
    // A demoted AI answer waits for a human (or a change of the post's text).
    `${p}.ai_answer_not_helpful_at IS NULL`,
    `(${p}.batch_id IS NULL OR EXISTS (SELECT 1 FROM batches b WHERE b.id = ${p}.batch_id AND b.deleted_at IS NULL))`,
    `(${p}.ai_answer_claim IS NULL OR ${p}.ai_answer_attempted_at < ${add(new Date(now.getTime() - CLAIM_LEASE_MINUTES * 60_000))}${own})`,
  ];
  if (!f.ignoreAgeAndCooldown) {
    conds.push(`${p}.created_at <= ${add(new Date(now.getTime() - ctx.config.AUTO_ANSWER_MIN_POST_AGE_HOURS * 3_600_000))}`);
    // A claim still standing is an attempt that never finished (its stamp is the claim's, not a verdict's):
    // the lease clause above decides when it may be taken (its own job's retry at once, any run once the
    // lease has run out), not the cooldown; else a job whose retries were spent held its posts for 24 h.
    conds.push(
      `(${p}.ai_answer_attempted_at IS NULL OR ${p}.ai_answer_claim IS NOT NULL OR ${p}.ai_answer_attempted_at <= ${add(new Date(now.getTime() - ctx.config.AUTO_ANSWER_COOLDOWN_HOURS * 3_600_000))})`,
    );
  }
  if (f.batchId) conds.push(`${p}.batch_id = ${add(f.batchId)}`);
  if (f.postId) conds.push(`${p}.id = ${add(f.postId)}`);
  if (f.exclude?.length) conds.push(`NOT (${p}.id = ANY(${add(f.exclude)}::uuid[]))`);
  return conds.join(' AND ');
}

const columns = (p: string) => `${p}.id, coalesce(${p}.batch_id, (SELECT d.id FROM batches d WHERE d.is_default LIMIT 1)) AS "batchId",
  ${p}.title, ${p}.body, ${p}.author_id AS "authorId", ${p}.ai_answer_status AS "aiAnswerStatus", ${p}.ai_answer_attempts AS attempts`;

/** Claims up to `limit` eligible posts, oldest first. */
export async function claimPosts(
  ctx: Pick<CoreContext, 'pool' | 'clock' | 'config'>,
  runId: string,
  f: ClaimFilter,
): Promise<ClaimedPost[]> {
  const now = ctx.clock.now();
  const params: unknown[] = [];
  const inner = eligibleWhere('c', f, params, now, ctx);
  // The outer check repeats the rules a concurrent write may have changed; the run's own exclusions cannot change.
  const outer = eligibleWhere('p', { ...f, exclude: undefined }, params, now, ctx);
  params.push(f.limit, now, runId);
  const n = params.length;
  const { rows } = await ctx.pool.query<ClaimedPost>(
    // MATERIALIZED: the picked set is computed once (an IN (... LIMIT) sub-query may be re-run and exceed the limit).
    `WITH picked AS MATERIALIZED (
       SELECT c.id FROM community_posts c WHERE ${inner} ORDER BY c.created_at, c.id LIMIT $${n - 2} FOR UPDATE SKIP LOCKED)
     UPDATE community_posts p
        SET ai_answer_attempted_at = $${n - 1}, ai_answer_claim = $${n},
            -- Taking back an unfinished claim is the same attempt, not another one.
            ai_answer_attempts = p.ai_answer_attempts + CASE WHEN p.ai_answer_claim IS NULL THEN 1 ELSE 0 END
       FROM picked
      WHERE p.id = picked.id AND ${outer}
      RETURNING ${columns('p')}`,
    params,
  );
  return rows;
}

/** The posts a run would take, without claiming them (dry runs). */
export async function previewEligible(ctx: Pick<CoreContext, 'pool' | 'clock' | 'config'>, f: ClaimFilter): Promise<ClaimedPost[]> {
  const params: unknown[] = [];
  const where = eligibleWhere('community_posts', f, params, ctx.clock.now(), ctx);
  params.push(f.limit);
  const { rows } = await ctx.pool.query<ClaimedPost>(
    `SELECT ${columns('community_posts')} FROM community_posts WHERE ${where} ORDER BY created_at, id LIMIT $${params.length}`,
    params,
  );
  return rows;
}
