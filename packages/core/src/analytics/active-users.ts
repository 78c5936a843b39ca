import { type SQL, sql } from 'drizzle-orm';
import { ACTIVITY_ALL_SCOPE, type CommunitySplit, liveAuthors } from './community-rollup.js';
import type { Interval } from './range.js';
import { bucketOfDay } from './sql.js';

/**
 * Distinct active users (wrote a post or a comment) of the days from..to, in one bucket (`interval`
 * null) or per bucket of the interval: rows `bucket date, n bigint` to sum per bucket. Exact, and no
 * distinct count over the range's activity:
 *
 * - Rolled days: user_active_days holds a row per (scope, user, active day) with the user's previous
 *   active day. The users with a row in a bucket's days [start, end] are the rows there whose
 *   previous day is before `start` (each user's first day in it): a count over the
 *   `(scope, day, prev_day)` index. That counts the table as the worker last wrote it, changed
 *   ("dirty") days included, so two corrections follow.
 * - Users whose only rows in the bucket are on dirty days are taken off (their rows there may be
 *   stale; the live rows below decide), and users with live activity in the bucket (today, days not
 *   rolled yet, dirty days: read from the raw tables) and no clean rolled row in it are added.
 *   Both are as many rows as the dirty and live days hold, each checked with one primary-key probe.
 */
export function activeUserCounts(split: CommunitySplit, batchId: string | null, from: string, interval: Interval | null): SQL {
  const scope = sql`${batchId ?? ACTIVITY_ALL_SCOPE}::uuid`;
  const a = sql`${from}::date`;
  const bucket = (d: SQL) => (interval ? bucketOfDay(d, interval) : a);
  const start = (d: SQL) => (interval ? sql`greatest(${bucket(d)}, ${a})` : a);
  const live = sql`select ${bucket(sql`l.day`)} as bucket, count(distinct l.user_id) as n from (${liveAuthors(split, batchId)}) l`;
  const r = split.rolled;
  if (!r) return sql`${live} group by 1`;
  const to = sql`${r.to}::date`;
  const end = (d: SQL) => (interval ? sql`least((${bucket(d)} + ${`1 ${interval}`}::interval - interval '1 day')::date, ${to})` : to);
  const dirty = sql`${`{${r.dirty.join(',')}}`}::date[]`;
  /**
   * A rolled row of the user on a clean day of the bucket of `d`. A scalar sub-select, not EXISTS: it
   * stays one primary-key probe per outer row (an anti-join may hash every row of the range instead).
   */
  const cleanRow = (user: SQL, d: SQL) =>
    sql`(select 1 from user_active_days y where y.scope = ${scope} and y.user_id = ${user}
      and y.day between ${start(d)} and ${end(d)}${r.dirty.length > 0 ? sql` and y.day <> all(${dirty})` : sql``} limit 1) is not null`;
  const parts = [
    sql`select ${bucket(sql`u.day`)} as bucket, count(*) filter (where u.prev_day is null or u.prev_day < ${start(sql`u.day`)}) as n
      from user_active_days u where u.scope = ${scope} and u.day between ${a} and ${to} group by 1`,
    sql`${live} where not ${cleanRow(sql`l.user_id`, sql`l.day`)} group by 1`,
  ];
  if (r.dirty.length > 0) {
    parts.push(sql`select ${bucket(sql`x.day`)}, -count(distinct x.user_id) from user_active_days x
      where x.scope = ${scope} and x.day = any(${dirty}) and not ${cleanRow(sql`x.user_id`, sql`x.day`)} group by 1`);
  }
  return sql.join(parts, sql` union all `);
}
