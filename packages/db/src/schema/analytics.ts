import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
