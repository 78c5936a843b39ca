import type { CoreContext } from '../context.js';
import { rangeView } from './range.js';
import type { SearchInsights } from './schemas.js';
import { type DashboardQuery, resolveScope } from './scope.js';
import { searchTotals, topQueries, unresolvedSummary } from './search.js';
import { splitSearchRange } from './search-source.js';
import { rate } from './sql.js';

/** `GET /admin/search/insights`: what people look for and do not find (content gaps), plus search health. */
export async function searchInsights(ctx: Pick<CoreContext, 'db' | 'clock'>, q: DashboardQuery): Promise<SearchInsights> {
  const s = await resolveScope(ctx, q, { series: false });
  const split = await splitSearchRange(ctx, s.range);
  const limit = q.limit ?? 10;
  const [t, top, zero, unresolved] = await Promise.all([
    searchTotals(ctx, split, s.batchId),
    topQueries(ctx, split, s.batchId, limit),
    topQueries(ctx, split, s.batchId, limit, true),
    unresolvedSummary(ctx, s, limit),
  ]);
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    searches: t.searches,
    zeroResultRate: rate(t.zeroResults, t.searches),
    cacheHitRate: rate(t.cacheHits, t.searches),
    degradedRate: rate(t.degraded, t.searches),
    avgLatencyMs: t.avgLatencyMs,
    topQueries: top,
    zeroResultQueries: zero,
    unresolved,
  };
}
