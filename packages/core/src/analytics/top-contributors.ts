import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { ACTIVITY_ALL_SCOPE, activityDays, type CommunitySplit, liveActivity, rolledDays } from './community-rollup.js';
import { inProgram } from './sql.js';

type Ctx = Pick<CoreContext, 'db'>;

export interface TopContributor {
  userId: string;
  posts: number;
  comments: number;
}

/**
 * When to walk: ranges of `minDays` or more (shorter ones have few activity rows: summed directly),
 * `step` users read per step, at most `steps` steps before giving up for the direct sum.
 */
export interface WalkOptions {
  minDays: number;
  step: number;
  steps: number;
}
const WALK: WalkOptions = { minDays: 90, step: 200, steps: 3 };

const total = (c: TopContributor) => c.posts + c.comments;
/** Top-list order: most posts plus comments first, ties by user id (uuid order is the text order). */
const before = (a: TopContributor, b: TopContributor) => total(a) > total(b) || (total(a) === total(b) && a.userId < b.userId);

/**
 * The `limit` users who wrote most (posts plus comments) in the split's days, exactly. Long ranges walk
 * user_activity_totals (each user's rolled total of all days: an upper bound of what they wrote in
 * any range) from the top, summing each user's rows of the range (user_daily_activity_user_idx) plus
 * their live ones, and stop as soon as the k-th best beats every user not read yet (a larger
 * total, or the same total and a smaller user id: the walk reads equal totals by user id). Users with
 * live activity are summed first, since their live rows are outside the bound. A walk that does not
 * stop within a few steps (many users with similar totals) falls back to summing the range directly.
 */
export async function topContributors(
  ctx: Ctx,
  split: CommunitySplit,
  batchId: string | null,
  days: number,
  limit: number,
  opts: WalkOptions = WALK,
): Promise<TopContributor[]> {
  if (split.rolled && days >= opts.minDays) {
    const walked = await walk(ctx, split, batchId, limit, opts);
    if (walked) return walked;
  }
  const res = await ctx.db.execute<{ user_id: string; posts: number; comments: number }>(sql`
    select user_id, sum(posts)::int as posts, sum(comments)::int as comments from (${activityDays(split, batchId)}) a
    group by user_id order by sum(posts) + sum(comments) desc, user_id limit ${limit}`);
  return res.rows.map((r) => ({ userId: r.user_id, posts: r.posts, comments: r.comments }));
}

async function walk(
  ctx: Ctx,
  split: CommunitySplit,
  batchId: string | null,
  limit: number,
  opts: WalkOptions,
): Promise<TopContributor[] | null> {
  const scope = batchId ?? ACTIVITY_ALL_SCOPE;
  const live = await ctx.db.execute<{ user_id: string; posts: number; comments: number }>(sql`
    select user_id, sum(posts)::int as posts, sum(comments)::int as comments from (${liveActivity(split, batchId)}) l group by 1`);
  const liveOf = new Map(live.rows.map((r) => [r.user_id, r]));
  const best: TopContributor[] = [];
  const seen = new Set<string>();
  const consider = (c: TopContributor) => {
    if (total(c) === 0) return;
    best.push(c);
    best.sort((a, b) => (before(a, b) ? -1 : 1));
    if (best.length > limit) best.pop();
  };
  /** Exact range sums of these users: rolled clean days plus live rows. */
  const sumUp = async (ids: string[]) => {
    const fresh = ids.filter((id) => !seen.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) seen.add(id);
    const rolled = await ctx.db.execute<{ user_id: string; posts: number; comments: number }>(sql`
      select user_id, sum(posts)::int as posts, sum(comments)::int as comments from user_daily_activity
      where user_id = any(${`{${fresh.join(',')}}`}::uuid[]) and ${rolledDays(split)}${inProgram(sql`batch_id`, batchId)}
      group by 1`);
    const byId = new Map(rolled.rows.map((r) => [r.user_id, r]));
    for (const id of fresh) {
      const r = byId.get(id);
      const l = liveOf.get(id);
      consider({ userId: id, posts: (r?.posts ?? 0) + (l?.posts ?? 0), comments: (r?.comments ?? 0) + (l?.comments ?? 0) });
    }
  };
  await sumUp([...liveOf.keys()]);
  let cursor: { total: number; userId: string } | null = null;
  for (let step = 0; step < opts.steps; step++) {
    const after = cursor ? sql` and (total < ${cursor.total} or (total = ${cursor.total} and user_id > ${cursor.userId}::uuid))` : sql``;
    const page: { rows: { user_id: string; total: number }[] } = await ctx.db.execute<{ user_id: string; total: number }>(sql`
      select user_id, total from user_activity_totals where scope = ${scope}::uuid and total > 0${
        cursor ? sql` and total <= ${cursor.total}` : sql``
      }${after}
      order by total desc, user_id limit ${opts.step}`);
    await sumUp(page.rows.map((r) => r.user_id));
    const last: { user_id: string; total: number } | undefined = page.rows[page.rows.length - 1];
    if (!last || page.rows.length < opts.step) return best; // every user with rolled activity was read
    cursor = { total: last.total, userId: last.user_id };
    const kth = best[limit - 1];
    if (kth && (total(kth) > last.total || (total(kth) === last.total && kth.userId < last.user_id))) return best;
  }
  return null;
}
