import { invalidField } from '../errors/index.js';
import { calendarDay, checkFromNotAfterTo } from '../shared/time-bounds.js';

/** Series buckets: UTC days, ISO weeks (from Monday) or calendar months. */
export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** Without `from`, a range covers the 30 days up to and including `to` (default today, UTC). */
export const DEFAULT_RANGE_DAYS = 30;
/** The longest range any dashboard accepts: 3 years (1,096 days). */
export const MAX_RANGE_DAYS = 1096;
/** The most buckets a series may have: a daily series spans at most 366 days (use week or month beyond). */
export const MAX_BUCKETS = 366;

export interface RangeInput {
  /** First day, YYYY-MM-DD (UTC), inclusive. */
  from?: string | undefined;
  /** Last day, YYYY-MM-DD (UTC), inclusive. */
  to?: string | undefined;
  interval?: Interval | undefined;
}

export interface DateRange {
  from: string;
  to: string;
  interval: Interval;
  /** Start of `from` and start of the day after `to`, UTC: rows match `ts >= start and ts < end`. */
  start: Date;
  end: Date;
}

const DAY_MS = 86_400_000;
const ymd = (d: Date) => d.toISOString().slice(0, 10);

function parseDay(field: 'from' | 'to', value: string): Date {
  const d = calendarDay(value);
  if (!d) throw invalidField(`query.${field}`, 'must be a calendar date YYYY-MM-DD');
  return d;
}

/** How many buckets of `interval` the days from..to touch (partial first and last buckets count). */
export function bucketCount(from: Date, to: Date, interval: Interval): number {
  if (interval === 'month') {
    return (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth() + 1;
  }
  if (interval === 'week') {
    const monday = (d: Date) => d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS;
    return Math.round((monday(to) - monday(from)) / (7 * DAY_MS)) + 1;
  }
  return Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
}

export interface RangeOptions {
  /** The route answers a series: only then does MAX_BUCKETS apply (a range without one is capped by MAX_RANGE_DAYS alone). */
  series: boolean;
}

/**
 * Validates and completes a dashboard's date range. A bad date, `from` after `to`, a range over
 * MAX_RANGE_DAYS, or (`series` routes) a series of more than MAX_BUCKETS buckets answer 400 naming the field.
 */
export function resolveRange(q: RangeInput, now: Date, opts: RangeOptions = { series: true }): DateRange {
  const interval = q.interval ?? 'day';
  const to = q.to ? parseDay('to', q.to) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = q.from ? parseDay('from', q.from) : new Date(to.getTime() - (DEFAULT_RANGE_DAYS - 1) * DAY_MS);
  checkFromNotAfterTo(from, to, ymd(to));
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days > MAX_RANGE_DAYS) throw invalidField('query.from', `the range may span at most ${MAX_RANGE_DAYS} days (it spans ${days})`);
  const buckets = bucketCount(from, to, interval);
  if (opts.series && buckets > MAX_BUCKETS) {
    throw invalidField(
      'query.interval',
      `a series may have at most ${MAX_BUCKETS} buckets (${days} days by ${interval} give ${buckets}); use a longer interval`,
    );
  }
  return { from: ymd(from), to: ymd(to), interval, start: from, end: new Date(to.getTime() + DAY_MS) };
}

/** The range as answers echo it. */
export const rangeView = (r: DateRange) => ({ from: r.from, to: r.to, interval: r.interval });
