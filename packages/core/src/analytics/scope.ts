import type { CoreContext } from '../context.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type DateRange, type Interval, type RangeOptions, resolveRange } from './range.js';

export interface DashboardQuery {
  from?: string | undefined;
  to?: string | undefined;
  interval?: Interval | undefined;
  batchId?: string | undefined;
  limit?: number | undefined;
}

export interface Scope {
  range: DateRange;
  /** null: every program. */
  batchId: string | null;
}

/**
 * The range and program of a dashboard request. A given batchId must name a program that is not
 * deleted (archived ones are fine: their history stays readable); otherwise 404 PROGRAM_NOT_FOUND.
 * `opts.series`: whether the dashboard answers a series (only those are held to MAX_BUCKETS).
 */
export async function resolveScope(ctx: Pick<CoreContext, 'db' | 'clock'>, q: DashboardQuery, opts: RangeOptions): Promise<Scope> {
  const range = resolveRange(q, ctx.clock.now(), opts);
  const batchId = q.batchId ? await resolveProgramId(ctx, q.batchId, { allowArchived: true }) : null;
  return { range, batchId };
}
