import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';

/**
 * Folds the appended count rows (user_counts, reputation_point_counts: written by triggers, one
 * row per change, migration 0028) into one row per key. Each statement takes exactly the rows its
 * snapshot sees and writes their sums; a row a writer appends meanwhile stays for the next run, and a
 * reader sees the rows before or after, never half. Repeatable at will; the sums never change.
 */
export async function compactCounts(ctx: Pick<CoreContext, 'db'>): Promise<{ users: number; points: number }> {
  const users = await ctx.db.execute<{ n: number }>(sql`
    with gone as (delete from user_counts returning role, status, users),
      kept as (insert into user_counts (role, status, users)
        select role, status, sum(users) from gone group by 1, 2 having sum(users) <> 0 returning 1)
    select (select count(*)::int from gone) as n`);
  const points = await ctx.db.execute<{ n: number }>(sql`
    with gone as (delete from reputation_point_counts returning batch_id, period, period_start, points, users),
      kept as (insert into reputation_point_counts (batch_id, period, period_start, points, users)
        select batch_id, period, period_start, points, sum(users) from gone group by 1, 2, 3, 4 having sum(users) <> 0 returning 1)
    select (select count(*)::int from gone) as n`);
  return { users: users.rows[0]?.n ?? 0, points: points.rows[0]?.n ?? 0 };
}
