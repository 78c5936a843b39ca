import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { activeUserCounts } from './active-users.js';
import { postFacts, scopeSplit } from './community.js';
import { signupDays } from './community-rollup.js';
import { rangeView } from './range.js';
import type { Overview } from './schemas.js';
import { type DashboardQuery, resolveScope, type Scope } from './scope.js';
import { searchTotals } from './search.js';
import { splitSearchRange } from './search-source.js';
import { inProgram, inRange, num, rate } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** FAQs created in the range, live now and waiting for review now. */
export async function faqFacts(ctx: Ctx, s: Scope) {
  const prog = inProgram(sql`batch_id`, s.batchId);
  const res = await ctx.db.execute<{ created: number; live: number; needs_review: number }>(sql`
    select (select count(*)::int from faqs where ${inRange(sql`created_at`, s.range)}${prog}) as created,
      (select count(*)::int from faqs where review_status in ('approved', 'verified')${prog}) as live,
      (select count(*)::int from faqs where review_status in ('pending_review', 'update_requested')${prog}) as needs_review`);
  const r = res.rows[0];
  return { created: r?.created ?? 0, live: r?.live ?? 0, needsReview: r?.needs_review ?? 0 };
}

/** `GET /analytics/overview`: the headline numbers of the range. */
export async function analyticsOverview(ctx: Ctx, q: DashboardQuery): Promise<Overview> {
  const scope = await resolveScope(ctx, q, { series: false });
  const [split, community] = await Promise.all([splitSearchRange(ctx, scope.range), scopeSplit(ctx, scope)]);
  const [posts, searches, faqs, people] = await Promise.all([
    postFacts(ctx, scope, community, false),
    searchTotals(ctx, split, scope.batchId),
    faqFacts(ctx, scope),
    ctx.db.execute<{ new_users: number; contributors: number; unresolved: number }>(sql`
      select (select sum(users) from (${signupDays(community)}) s) as new_users,
        (select sum(n) from (${activeUserCounts(community, scope.batchId, scope.range.from, null)}) a) as contributors,
        (select count(*)::int from unresolved_searches where status = 'open'${inProgram(sql`batch_id`, scope.batchId)}) as unresolved`),
  ]);
  const p = people.rows[0];
  return {
    range: rangeView(scope.range),
    batchId: scope.batchId,
    posts: { created: posts.posts, answered: posts.answered, answerRate: rate(posts.answered, posts.posts) },
    searches: {
      total: searches.searches,
      zeroResultRate: rate(searches.zeroResults, searches.searches),
      cacheHitRate: rate(searches.cacheHits, searches.searches),
    },
    faqs,
    users: { new: num(p?.new_users), activeContributors: num(p?.contributors) },
    unresolvedOpen: num(p?.unresolved),
  };
}
