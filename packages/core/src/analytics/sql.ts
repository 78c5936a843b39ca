import { type SQL, sql } from 'drizzle-orm';
import type { DateRange, Interval } from './range.js';

/** The interval as a SQL literal (one of three fixed words, never client text). */
const unit = (i: Interval) => sql.raw(`'${i}'`);

/** The UTC bucket (its first day) of a timestamptz expression. */
export const bucketOfTs = (ts: SQL, i: Interval) => sql`date_trunc(${unit(i)}, (${ts}) at time zone 'UTC')::date`;
/** The bucket of a date expression (rollup days). */
export const bucketOfDay = (day: SQL, i: Interval) => sql`date_trunc(${unit(i)}, (${day})::timestamp)::date`;

/** Every bucket of the range, first days, as rows of `bucket date`: the zeros come from here. */
export const bucketRows = (r: DateRange) =>
  sql`select d::date as bucket from generate_series(date_trunc(${unit(r.interval)}, ${r.from}::timestamp), ${r.to}::timestamp, ${`1 ${r.interval}`}::interval) d`;

/**
 * `and <col> = <batchId>` when a program is given; otherwise every program but the deleted ones (their
 * content is gone from every read, so from the all-programs totals too; an anti-join over the few
 * deleted programs, rows without a program kept).
 */
export const inProgram = (col: SQL, batchId: string | null) =>
  batchId
    ? sql` and ${col} = ${batchId}::uuid`
    : sql` and not exists (select 1 from batches gone where gone.id = ${col} and gone.deleted_at is not null)`;

/** Timestamps within the range (half-open, UTC days). */
export const inRange = (ts: SQL, r: { start: Date; end: Date }) =>
  sql`${ts} >= ${r.start.toISOString()}::timestamptz and ${ts} < ${r.end.toISOString()}::timestamptz`;

/**
 * A series: every bucket of the range left-joined to `data` (rows of `bucket` plus the metric
 * columns aliased in double quotes, grouped by bucket), missing buckets filled with zero. Metric names are code constants.
 */
export function filledSeries(r: DateRange, data: SQL, metrics: readonly string[]): SQL {
  const cols = sql.raw(metrics.map((m) => `coalesce(x."${m}", 0)::int as "${m}"`).join(', '));
  return sql`with b as (${bucketRows(r)}), x as (${data})
    select to_char(b.bucket, 'YYYY-MM-DD') as bucket, ${cols}
    from b left join x on x.bucket = b.bucket order by b.bucket`;
}

/** A share of a whole, 4 decimals; null when the whole is zero (no data, not a 0 % rate). */
export const rate = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);

/** Postgres counts come back as numbers (::int) or numeric strings (sum of bigint); both to number. */
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
