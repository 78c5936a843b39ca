import { type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { DAY_MS } from '../runtime/clock.js';
import type { Tx } from '../shared/db.js';
import { inProgram } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'log'>;

export const COMMUNITY_ROLLUP = 'community';

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const dayStart = (day: string) => new Date(`${day}T00:00:00Z`);
const nextDay = (day: string) => ymd(new Date(dayStart(day).getTime() + DAY_MS));

/**
 * Where a span of days' community facts come from. Rolled: the days up to the rollup's last day
 * that no write has changed since (community_daily_stats, signup_daily_stats, user_daily_activity).
 * Live: the days after it (today, and any the worker has not rolled yet) and the changed ("dirty")
 * days, read from community_posts, comments and users through their created_at indexes. The answers
 * are the raw ones either way; without a rollup everything is live, only slower.
 */
export interface CommunitySplit {
  /** Rolled days: from..to inclusive (from null: since the beginning), minus `dirty`; null when none are. */
  rolled: { from: string | null; to: string; dirty: string[] } | null;
  /** Half-open timestamp ranges read live (merged, in order). */
  live: { start: Date; end: Date }[];
}

/** Splits the days from..to (inclusive; from null: everything before `to`). */
export async function splitCommunityDays(ctx: Pick<CoreContext, 'db'>, from: string | null, to: string): Promise<CommunitySplit> {
  // One statement: the rolled-through day and the dirty days are read in one snapshot.
  const res = await ctx.db.execute<{ through: string; dirty: string[] | null }>(sql`
    select to_char(r.rolled_through, 'YYYY-MM-DD') as through,
      (select array_agg(distinct to_char(d.day, 'YYYY-MM-DD')) from analytics_dirty_days d
        where d.day <= r.rolled_through and d.day <= ${to}::date${from ? sql` and d.day >= ${from}::date` : sql``}) as dirty
    from analytics_rollups r where r.name = ${COMMUNITY_ROLLUP}`);
  const row = res.rows[0];
  const end = dayStart(nextDay(to));
  const whole = { start: from ? dayStart(from) : new Date(0), end };
  if (!row || (from && row.through < from)) return { rolled: null, live: [whole] };
  const rolledTo = row.through < to ? row.through : to;
  const dirty = [...(row.dirty ?? [])].sort();
  const ranges = dirty.map((d) => ({ start: dayStart(d), end: dayStart(nextDay(d)) }));
  const tail = dayStart(nextDay(rolledTo));
  if (tail < end) ranges.push({ start: tail, end });
  const live: { start: Date; end: Date }[] = [];
  for (const r of ranges) {
    const last = live[live.length - 1];
    if (last && last.end.getTime() === r.start.getTime()) last.end = r.end;
    else live.push({ ...r });
  }
  return { rolled: { from, to: rolledTo, dirty }, live };
}

/** The rolled days of the split, on a rollup table's `day` column; false when there are none. */
export function rolledDays(s: CommunitySplit, day: SQL = sql`day`): SQL {
  if (!s.rolled) return sql`false`;
  const { from, to, dirty } = s.rolled;
  const since = from ? sql`${day} >= ${from}::date and ` : sql``;
  const clean = dirty.length > 0 ? sql` and ${day} <> all(${`{${dirty.join(',')}}`}::date[])` : sql``;
  return sql`(${since}${day} <= ${to}::date${clean})`;
}

/** The live ranges of the split, on a created_at column; false when there are none. */
export function liveTimes(s: CommunitySplit, ts: SQL): SQL {
  if (s.live.length === 0) return sql`false`;
  const parts = s.live.map((r) => sql`(${ts} >= ${r.start.toISOString()}::timestamptz and ${ts} < ${r.end.toISOString()}::timestamptz)`);
  return sql`(${sql.join(parts, sql` or `)})`;
}

const day = (ts: SQL) => sql`(${ts} at time zone 'UTC')::date`;

/** Columns of a day's community facts, in the order every source below selects them. */
export const COMMUNITY_FACTS = [
  'posts',
  'answered',
  'ai_attempted',
  'ai_auto_approved',
  'ai_reviewed',
  'ai_approved',
  'escalated',
  'ai_awaiting',
  'status_open',
  'status_answered',
  'status_pending',
  'status_closed',
  'comments',
  'comments_accepted',
] as const;
export type CommunityFact = (typeof COMMUNITY_FACTS)[number];

/** A day's post facts from community_posts rows (alias p), grouped by the first column. */
const postAggregates = sql`count(*), count(p.answered_at), count(p.ai_answer_status),
  count(*) filter (where p.ai_answer_status = 'approved' and p.ai_answer_reviewed_at is null),
  count(p.ai_answer_reviewed_at), count(*) filter (where p.ai_answer_reviewed_at is not null and p.ai_answer_status = 'approved'),
  count(*) filter (where p.escalation_status = 'escalated'),
  count(*) filter (where p.ai_answer_status in ('suggested', 'escalated')),
  count(*) filter (where p.status = 'open'), count(*) filter (where p.status = 'answered'),
  count(*) filter (where p.status = 'pending'), count(*) filter (where p.status = 'closed'), 0, 0`;
const commentAggregates = sql`0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*), count(*) filter (where c.is_accepted)`;

/**
 * Comments (alias c) in `when`, of the program's posts when one is given, else of every program but
 * the deleted ones (a comment counts in its post's program, as posts do). A deleted post's comments
 * never count, as the post does not (its deletion marks their days: migration 0043).
 */
const LIVE_COMMENT = sql`c.deleted_at is null and p.deleted_at is null`;
const commentsWhere = (when: SQL, batchId: string | null) =>
  sql`comments c join community_posts p on p.id = c.post_id where ${when} and ${LIVE_COMMENT}${inProgram(sql`p.batch_id`, batchId)}`;

/** Rows `day, <COMMUNITY_FACTS>` (several rows a day possible: sum them), rollup and live alike. */
export function communityDays(s: CommunitySplit, batchId: string | null): SQL {
  const cols = sql.raw(COMMUNITY_FACTS.map((c) => `${c}::bigint`).join(', '));
  const livePosts = liveTimes(s, sql`p.created_at`);
  const liveComments = liveTimes(s, sql`c.created_at`);
  return sql`
    select day, ${cols} from community_daily_stats where ${rolledDays(s)}${inProgram(sql`batch_id`, batchId)}
    union all
    select ${day(sql`p.created_at`)}, ${postAggregates} from community_posts p
      where ${livePosts} and p.deleted_at is null${inProgram(sql`p.batch_id`, batchId)} group by 1
    union all
    select ${day(sql`c.created_at`)}, ${commentAggregates} from ${commentsWhere(liveComments, batchId)} group by 1`;
}

/** Rows `day, users`: accounts created, rollup and live. */
export function signupDays(s: CommunitySplit): SQL {
  return sql`
    select day, users::bigint from signup_daily_stats where ${rolledDays(s)}
    union all
    select ${day(sql`created_at`)}, count(*) from users where ${liveTimes(s, sql`created_at`)} group by 1`;
}

/**
 * Rows `day, user_id, posts, comments`: who wrote how much each day (several rows per user and day
 * possible: one per program, and rollup plus live on a dirty day never overlap).
 */
export function activityDays(s: CommunitySplit, batchId: string | null): SQL {
  return sql`
    select day, user_id, posts::bigint, comments::bigint from user_daily_activity where ${rolledDays(s)}${inProgram(sql`batch_id`, batchId)}
    union all
    select ${day(sql`p.created_at`)}, p.author_id, 1, 0 from community_posts p
      where ${liveTimes(s, sql`p.created_at`)} and p.deleted_at is null and p.author_id is not null${inProgram(sql`p.batch_id`, batchId)}
    union all
    select ${day(sql`c.created_at`)}, c.author_id, 0, 1 from ${commentsWhere(liveTimes(s, sql`c.created_at`), batchId)} and c.author_id is not null`;
}

/**
 * The scope of user_active_days that holds every program together but the deleted ones (a program's
 * rows carry its id). Deleting a program marks its rolled days (markProgramDays), so they are read
 * live until the next rollup writes them again without it.
 */
export const ACTIVITY_ALL_SCOPE = '00000000-0000-0000-0000-000000000000';

/** Marks every rolled day with activity of the program for recomputation (its deletion changes them). */
export async function markProgramDays(tx: Tx, batchId: string): Promise<void> {
  await tx.execute(sql`
    insert into analytics_dirty_days (day) select distinct day from user_daily_activity where batch_id = ${batchId}::uuid`);
}

/**
 * user_active_days for the recomputed days (whose old rows the caller deleted), from the
 * user_daily_activity rows just written for them, then the previous active day of every row that may
 * have changed: a user's row on a recomputed day and the row after it (whose previous day is a new
 * day in between or a removed one, so either on a recomputed day or pointing at one). The users
 * concerned get their whole history re-linked (lag over their rows); unchanged rows are not written.
 */
async function rollUpActiveDays(tx: Tx, days: SQL, prevDays: SQL): Promise<void> {
  await tx.execute(sql`
    insert into user_active_days (scope, user_id, day)
    select ${ACTIVITY_ALL_SCOPE}::uuid, user_id, day from user_daily_activity where ${days}${inProgram(sql`batch_id`, null)} group by user_id, day
    union all
    select batch_id, user_id, day from user_daily_activity where ${days} and batch_id is not null group by batch_id, user_id, day`);
  await tx.execute(sql`
    update user_active_days a set prev_day = x.prev
    from (
      select scope, user_id, day, lag(day) over (partition by scope, user_id order by day) as prev from user_active_days
      where (scope, user_id) in (select scope, user_id from user_active_days where ${days} or ${prevDays})
    ) x
    where a.scope = x.scope and a.user_id = x.user_id and a.day = x.day and a.prev_day is distinct from x.prev`);
}

/**
 * Moves user_activity_totals by the user_daily_activity rows of `days`: -1 takes the rows about to be
 * replaced off, +1 adds the new ones, so each total stays the sum of the user's rolled rows.
 */
async function moveActivityTotals(tx: Tx, days: SQL, sign: 1 | -1): Promise<void> {
  await tx.execute(sql`
    insert into user_activity_totals (scope, user_id, total)
    select scope, user_id, ${sign}::int * sum(n) from (
      select ${ACTIVITY_ALL_SCOPE}::uuid as scope, user_id, posts + comments as n from user_daily_activity where ${days}
      union all
      select batch_id, user_id, posts + comments from user_daily_activity where ${days} and batch_id is not null
    ) x group by 1, 2
    on conflict (scope, user_id) do update set total = user_activity_totals.total + excluded.total`);
  if (sign === 1) await tx.execute(sql`delete from user_activity_totals where total = 0`);
}

/** Rows `user_id, posts, comments`: what each author wrote on the split's live days (several rows per user). */
export function liveActivity(s: CommunitySplit, batchId: string | null): SQL {
  return sql`
    select p.author_id as user_id, 1 as posts, 0 as comments from community_posts p
      where ${liveTimes(s, sql`p.created_at`)} and p.deleted_at is null and p.author_id is not null${inProgram(sql`p.batch_id`, batchId)}
    union all
    select c.author_id, 0, 1 from ${commentsWhere(liveTimes(s, sql`c.created_at`), batchId)} and c.author_id is not null`;
}

/** Rows `day, user_id`: who wrote a post or a comment on the split's live days (repeats possible). */
export function liveAuthors(s: CommunitySplit, batchId: string | null): SQL {
  return sql`
    select ${day(sql`p.created_at`)} as day, p.author_id as user_id from community_posts p
      where ${liveTimes(s, sql`p.created_at`)} and p.deleted_at is null and p.author_id is not null${inProgram(sql`p.batch_id`, batchId)}
    union all
    select ${day(sql`c.created_at`)}, c.author_id from ${commentsWhere(liveTimes(s, sql`c.created_at`), batchId)} and c.author_id is not null`;
}

export interface CommunityRollupResult {
  /** The days recomputed (first and last of the new ones, and how many changed ones). */
  from: string | null;
  to: string | null;
  days: number;
  dirty: number;
}

/**
 * Rolls community_posts, comments and users up into community_daily_stats, signup_daily_stats and
 * user_daily_activity: every complete UTC day (yesterday and before) not rolled yet, and every
 * rolled day a write has changed since (analytics_dirty_days). One transaction under an advisory
 * lock; it removes the marks before it reads, so a change committed during the run keeps its mark
 * and its day stays live until the next run. Repeatable at will.
 */
export async function rollUpCommunity(ctx: Ctx): Promise<CommunityRollupResult> {
  const lastComplete = ymd(new Date(dayStart(ymd(ctx.clock.now())).getTime() - DAY_MS));
  const result = await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('analytics.rollup.community'))`);
    const state = await tx.execute<{ through: string | null; first: string | null }>(sql`
      select (select to_char(rolled_through, 'YYYY-MM-DD') from analytics_rollups where name = ${COMMUNITY_ROLLUP}) as through,
        (select to_char(least(
          (select min(created_at) from community_posts), (select min(created_at) from comments), (select min(created_at) from users)
        ) at time zone 'UTC', 'YYYY-MM-DD')) as first`);
    const st = state.rows[0];
    const through = st?.through ?? null;
    // New days: after the last rolled one (the first run: from the oldest row) up to yesterday.
    const newFrom = through ? nextDay(through) : (st?.first ?? null);
    const fresh = newFrom && newFrom <= lastComplete ? { from: newFrom, to: lastComplete } : null;
    // The marks are taken first: exactly the committed ones, whose changes every later statement
    // of this transaction sees. A change that commits later keeps its mark (its day stays live).
    const dirtyRows = await tx.execute<{ d: string }>(sql`
      with taken as (delete from analytics_dirty_days where day <= ${lastComplete}::date returning day)
      select distinct to_char(day, 'YYYY-MM-DD') as d from taken
      where ${through ? sql`day <= ${through}::date` : sql`false`} order by 1`);
    const dirty = dirtyRows.rows.map((r) => r.d);
    if (!fresh && dirty.length === 0) return { from: null, to: null, days: 0, dirty: 0 };
    const split: CommunitySplit = {
      rolled: null,
      live: [
        ...dirty.map((d) => ({ start: dayStart(d), end: dayStart(nextDay(d)) })),
        ...(fresh ? [{ start: dayStart(fresh.from), end: dayStart(nextDay(fresh.to)) }] : []),
      ],
    };
    const daysOf = (col: SQL) =>
      sql`(${dirty.length > 0 ? sql`${col} = any(${`{${dirty.join(',')}}`}::date[])` : sql`false`}${
        fresh ? sql` or ${col} between ${fresh.from}::date and ${fresh.to}::date` : sql``
      })`;
    const days = daysOf(sql`day`);
    await moveActivityTotals(tx, days, -1);
    for (const table of ['community_daily_stats', 'signup_daily_stats', 'user_daily_activity', 'user_active_days', 'answer_time_daily']) {
      await tx.execute(sql`delete from ${sql.identifier(table)} where ${days}`);
    }
    const cols = sql.raw(COMMUNITY_FACTS.join(', '));
    const sums = sql.raw(COMMUNITY_FACTS.map((c) => `sum(${c})`).join(', '));
    const livePosts = liveTimes(split, sql`p.created_at`);
    const liveComments = liveTimes(split, sql`c.created_at`);
    await tx.execute(sql`
      insert into community_daily_stats (day, batch_id, ${cols})
      select day, batch_id, ${sums} from (
        select ${day(sql`p.created_at`)} as day, p.batch_id, ${postAggregates} from community_posts p
          where ${livePosts} and p.deleted_at is null group by 1, 2
        union all
        select ${day(sql`c.created_at`)}, p.batch_id, ${commentAggregates}
          from comments c join community_posts p on p.id = c.post_id where ${liveComments} and ${LIVE_COMMENT} group by 1, 2
      ) x (day, batch_id, ${cols}) group by 1, 2`);
    await tx.execute(sql`
      insert into answer_time_daily (day, batch_id, bucket, posts)
      select ${day(sql`p.created_at`)}, p.batch_id, answer_time_bucket(p.created_at, p.answered_at), count(*) from community_posts p
        where ${livePosts} and p.answered_at is not null and p.deleted_at is null group by 1, 2, 3`);
    await tx.execute(sql`
      insert into signup_daily_stats (day, users)
      select ${day(sql`created_at`)}, count(*) from users where ${liveTimes(split, sql`created_at`)} group by 1`);
    await tx.execute(sql`
      insert into user_daily_activity (day, batch_id, user_id, posts, comments)
      select day, batch_id, user_id, sum(posts), sum(comments) from (
        select ${day(sql`p.created_at`)} as day, p.batch_id, p.author_id as user_id, 1 as posts, 0 as comments from community_posts p
          where ${livePosts} and p.deleted_at is null and p.author_id is not null
        union all
        select ${day(sql`c.created_at`)}, p.batch_id, c.author_id, 0, 1
          from comments c join community_posts p on p.id = c.post_id where ${liveComments} and ${LIVE_COMMENT} and c.author_id is not null
      ) x group by 1, 2, 3`);
    await moveActivityTotals(tx, days, 1);
    await rollUpActiveDays(tx, days, daysOf(sql`prev_day`));
    if (fresh) {
      await tx.execute(sql`
        insert into analytics_rollups (name, rolled_through, updated_at) values (${COMMUNITY_ROLLUP}, ${fresh.to}::date, now())
        on conflict (name) do update set rolled_through = excluded.rolled_through, updated_at = excluded.updated_at`);
    }
    const n = fresh ? Math.round((Date.parse(fresh.to) - Date.parse(fresh.from)) / DAY_MS) + 1 : 0;
    return { from: fresh?.from ?? null, to: fresh?.to ?? null, days: n, dirty: dirty.length };
  });
  ctx.log.info({ rollup: result }, '[pipeline] analytics.rollup community done');
  return result;
}
