import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.js';

/**
 * Daily search totals per program, rolled up from search_logs by the worker (analytics.rollup). The
 * dashboards read complete days here and only the days after `analytics_rollups.rolled_through`
 * from search_logs, so a request never aggregates a month of raw log rows. Counts are in searches
 * (search_logs.count), not rows. Kept past the 90-day log retention: no user ids, no query text.
 */
export const searchDailyStats = pgTable(
  'search_daily_stats',
  {
    day: date({ mode: 'string' }).notNull(),
    batchId: uuid(),
    searches: integer().notNull(),
    zeroResults: integer().notNull(),
    cacheHits: integer().notNull(),
    degraded: integer().notNull(),
    /** Sum of latency_ms over the searches that recorded one, and how many did (for the mean). */
    latencySum: bigint({ mode: 'number' }).notNull(),
    latencyCount: integer().notNull(),
  },
  (t) => [uniqueIndex('search_daily_stats_key').on(t.day, sql`coalesce(${t.batchId}, '00000000-0000-0000-0000-000000000000'::uuid)`)],
);

/**
 * Daily searches per normalised query and program (top queries, zero-result queries). Rows older
 * than the search-log retention are deleted with the log (query text is user input).
 */
export const searchQueryDaily = pgTable(
  'search_query_daily',
  {
    day: date({ mode: 'string' }).notNull(),
    batchId: uuid(),
    normalizedQuery: text().notNull(),
    searches: integer().notNull(),
    zeroResults: integer().notNull(),
    /** The query's rank that day in its program by searches, and by zero-result searches (null: none). */
    searchesRank: integer(),
    zeroRank: integer(),
  },
  (t) => [
    index('search_query_daily_day_idx').on(t.day, t.batchId),
    // Top lists pick candidates from each day's leaders (small), then sum those queries exactly over
    // the range through the second index, instead of grouping every query of every day.
    index('search_query_daily_leaders_idx')
      .on(t.day, t.batchId, t.normalizedQuery)
      .where(sql`${t.searchesRank} <= 100 or ${t.zeroRank} <= 100`),
    index('search_query_daily_query_idx').on(t.normalizedQuery, t.day, t.batchId, t.searches, t.zeroResults),
  ],
);

/** How far each rollup has been computed: every day up to and including `rolledThrough` (UTC). */
export const analyticsRollups = pgTable('analytics_rollups', {
  name: text().primaryKey(),
  rolledThrough: date({ mode: 'string' }).notNull(),
  updatedAt: tstz('updated_at').notNull().defaultNow(),
});

/**
 * Daily community totals per program (the day a post or comment was created, UTC; a comment counts
 * in its post's program), rolled up by the worker (analytics.rollup, community-rollup.ts) from
 * community_posts and comments for every complete day. Posts and comments change after their day
 * (answered, deleted, accepted): triggers (migration 0026) note the day of every change in
 * analytics_dirty_days, and the dashboards read a noted day live until the worker has recomputed it,
 * so the answers always equal the raw count. Counts are of rows not deleted.
 */
export const communityDailyStats = pgTable(
  'community_daily_stats',
  {
    day: date({ mode: 'string' }).notNull(),
    batchId: uuid(),
    posts: integer().notNull(),
    answered: integer().notNull(),
    aiAttempted: integer().notNull(),
    aiAutoApproved: integer().notNull(),
    aiReviewed: integer().notNull(),
    aiApproved: integer().notNull(),
    escalated: integer().notNull(),
    /** AI answers waiting for staff review (suggested or escalated). */
    aiAwaiting: integer().notNull(),
    statusOpen: integer().notNull(),
    statusAnswered: integer().notNull(),
    statusPending: integer().notNull(),
    statusClosed: integer().notNull(),
    comments: integer().notNull(),
    commentsAccepted: integer().notNull(),
  },
  (t) => [uniqueIndex('community_daily_stats_key').on(t.day, sql`coalesce(${t.batchId}, '00000000-0000-0000-0000-000000000000'::uuid)`)],
);

/** Accounts created per day (UTC), rolled up with the community totals. */
export const signupDailyStats = pgTable('signup_daily_stats', {
  day: date({ mode: 'string' }).primaryKey(),
  users: integer().notNull(),
});

/**
 * Who wrote anything (posts, comments) on a day in a program, and how much: one row per user, day
 * and program. Distinct active users of a range or bucket count these rows' users (a distinct count
 * cannot be summed from daily totals); top contributors sum them.
 */
export const userDailyActivity = pgTable(
  'user_daily_activity',
  {
    day: date({ mode: 'string' }).notNull(),
    batchId: uuid(),
    userId: uuid().notNull(),
    posts: integer().notNull(),
    comments: integer().notNull(),
  },
  (t) => [
    index('user_daily_activity_day_idx').on(t.day, t.userId, t.batchId, t.posts, t.comments),
    index('user_daily_activity_batch_idx').on(t.batchId, t.day, t.userId, t.posts, t.comments),
    index('user_daily_activity_user_idx').on(t.userId, t.day, t.batchId, t.posts, t.comments),
  ],
);

/**
 * Answered posts per day, program and answer-time bucket (`answer_time_bucket(created_at, answered_at)`:
 * 4 buckets per doubling of the seconds to the first answer, migration 0030). The median time to first
 * answer sums these per bucket to find the bucket holding the middle rank, then reads only that
 * bucket's posts of the range (community_posts_answer_time_idx) for the exact values.
 */
export const answerTimeDaily = pgTable(
  'answer_time_daily',
  {
    day: date({ mode: 'string' }).notNull(),
    batchId: uuid(),
    bucket: integer().notNull(),
    posts: integer().notNull(),
  },
  (t) => [
    index('answer_time_daily_day_idx').on(t.day, t.batchId, t.bucket, t.posts),
    index('answer_time_daily_batch_idx').on(t.batchId, t.day, t.bucket, t.posts),
  ],
);

/**
 * Each user's rolled-up posts plus comments of all days, per scope (a program, or the nil uuid for all
 * programs): an upper bound of what they wrote in any range, read in order by top contributors to stop
 * early (admin-community.ts). Moved by the community rollup by exactly the rows it replaces (migration 0029).
 */
export const userActivityTotals = pgTable(
  'user_activity_totals',
  {
    scope: uuid().notNull(),
    userId: uuid().notNull(),
    total: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.userId] }), index('user_activity_totals_rank_idx').on(t.scope, t.total.desc(), t.userId)],
);

/**
 * The days each user was active (wrote a post or a comment), per scope: one row per (scope, user, day),
 * where the scope is a program id, or the nil uuid for every program together (ACTIVITY_ALL_SCOPE in
 * core), each row carrying the user's previous active day in that scope (null: none). The users
 * active in the days [a, b] are then exactly the rows of [a, b] whose previous day is before a (each
 * user's first active day in the range), a count over `user_active_days_range_idx` instead of a
 * distinct count. Kept by the community rollup together with user_daily_activity (migration 0027).
 */
export const userActiveDays = pgTable(
  'user_active_days',
  {
    scope: uuid().notNull(),
    userId: uuid().notNull(),
    day: date({ mode: 'string' }).notNull(),
    prevDay: date({ mode: 'string' }),
  },
  (t) => [primaryKey({ columns: [t.scope, t.userId, t.day] }), index('user_active_days_range_idx').on(t.scope, t.day, t.prevDay)],
);

/**
 * Days (UTC) whose community or signup rows changed since the worker last rolled them: written by
 * triggers on community_posts, comments and users, read by the dashboards (those days are answered
 * live), removed by the worker once it has recomputed them.
 */
export const analyticsDirtyDays = pgTable(
  'analytics_dirty_days',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    day: date({ mode: 'string' }).notNull(),
  },
  (t) => [index('analytics_dirty_days_day_idx').on(t.day)],
);
