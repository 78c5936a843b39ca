import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { resolveProgramId } from '../programs/resolve.js';
import { DAY_MS } from '../runtime/clock.js';
import { communityTotals } from './community.js';
import { splitCommunityDays } from './community-rollup.js';
import { resolveRange } from './range.js';
import type { AdminStats } from './schemas.js';
import { searchTotals } from './search.js';
import { splitSearchRange } from './search-source.js';
import { inProgram, num } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

const byKey = (rows: { k: string; n: number }[], keys: readonly string[]) =>
  Object.fromEntries(keys.map((k) => [k, rows.find((r) => r.k === k)?.n ?? 0])) as Record<string, number>;

/** `GET /admin/stats`: the state of things now (users, FAQs, posts) and recent search volume. */
export async function adminStats(ctx: Ctx, q: { batchId?: string | undefined }): Promise<AdminStats> {
  const batchId = q.batchId ? await resolveProgramId(ctx, q.batchId, { allowArchived: true }) : null;
  const now = ctx.clock.now();
  const today = now.toISOString().slice(0, 10);
  const daysBack = (n: number) => new Date(Date.parse(today) - (n - 1) * DAY_MS).toISOString().slice(0, 10);
  const windows = [1, 7, 30].map((n) => resolveRange({ from: daysBack(n), to: today }, now));
  const prog = inProgram(sql`batch_id`, batchId);
  const [users, faqs, posts, unresolved, ...searches] = await Promise.all([
    // Kept counts (user_counts, appended by triggers and folded by the rollup job): no count of the users.
    // A suspension whose end has passed no longer counts (as everywhere: isSuspended), though the row
    // still says suspended: those few are taken off through a partial index.
    ctx.db.execute<{ total: string | null; admins: string | null; moderators: string | null; suspended: string | null }>(sql`
      select sum(users) as total, sum(users) filter (where role = 'admin') as admins,
        sum(users) filter (where role = 'moderator') as moderators,
        coalesce(sum(users) filter (where status = 'suspended'), 0)
          - (select count(*) from users where status = 'suspended' and suspended_until is not null and suspended_until <= ${now}) as suspended
      from user_counts`),
    ctx.db.execute<{ k: string; n: number }>(
      sql`select review_status::text as k, count(*)::int as n from faqs where true${prog} group by 1`,
    ),
    // Every post ever (a clock behind the rows' dates included): the community rollup's days plus the
    // live ones, not a scan of the posts.
    splitCommunityDays(ctx, null, '9999-12-30').then((split) => communityTotals(ctx, split, batchId)),
    ctx.db.execute<{ n: number }>(sql`select count(*)::int as n from unresolved_searches where status = 'open'${prog}`),
    ...windows.map(async (r) => searchTotals(ctx, await splitSearchRange(ctx, r), batchId)),
  ]);
  const u = users.rows[0];
  const sum = (rows: { n: number }[]) => rows.reduce((a, r) => a + r.n, 0);
  return {
    batchId,
    generatedAt: now,
    users: { total: num(u?.total), admins: num(u?.admins), moderators: num(u?.moderators), suspended: num(u?.suspended) },
    faqs: {
      total: sum(faqs.rows),
      byReviewStatus: byKey(faqs.rows, [
        'approved',
        'pending_review',
        'draft',
        'verified',
        'update_requested',
      ]) as AdminStats['faqs']['byReviewStatus'],
    },
    posts: {
      total: posts.posts,
      byStatus: { open: posts.status_open, answered: posts.status_answered, pending: posts.status_pending, closed: posts.status_closed },
      escalated: posts.escalated,
      aiAwaitingReview: posts.ai_awaiting,
    },
    searches: { today: searches[0]?.searches ?? 0, last7Days: searches[1]?.searches ?? 0, last30Days: searches[2]?.searches ?? 0 },
    unresolvedOpen: unresolved.rows[0]?.n ?? 0,
  };
}
