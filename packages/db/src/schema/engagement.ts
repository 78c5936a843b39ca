import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, streamXid, tstz, updatedAt, xid8 } from './columns.js';
import { supportRequestStatus } from './enums.js';
import { users } from './identity.js';
import { batches } from './programs.js';

/** In-app notifications to one user. `kind` is open-ended (post_answered, post_deleted, first_responder_awarded, ...). */
export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    batchId: uuid().references(() => batches.id),
    kind: text().notNull(),
    title: text().notNull(),
    body: text(),
    link: text(),
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    readAt: tstz('read_at'),
    createdAt: createdAt(),
    /** The writing transaction's id: the order of GET /notifications/stream. */
    streamXid: streamXid(),
  },
  (t) => [
    index('notifications_user_idx').on(t.userId, t.createdAt),
    index('notifications_stream_idx').on(t.userId, t.streamXid, t.id),
    index('notifications_unread_idx').on(t.userId).where(sql`${t.readAt} is null`),
    index('notifications_batch_idx').on(t.batchId),
  ],
);

export const notificationSettings = pgTable('notification_settings', {
  userId: uuid()
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  inApp: boolean().notNull().default(true),
  email: boolean().notNull().default(false),
  teaDrops: boolean().notNull().default(true),
  /** Per-kind switches; a kind missing here is on. */
  kinds: jsonb().$type<Record<string, boolean>>().notNull().default({}),
  updatedAt: updatedAt(),
});

/**
 * Tea drops: short community-pulse items. A drop with a userId is personal; without one it is for
 * everyone in its program. Read state of both kinds lives in tea_notification_reads.
 */
export const teaNotifications = pgTable(
  'tea_notifications',
  {
    id: id(),
    userId: uuid().references(() => users.id, { onDelete: 'cascade' }),
    batchId: uuid().references(() => batches.id),
    kind: text().notNull(),
    title: text().notNull(),
    body: text(),
    link: text(),
    refType: text(),
    refId: uuid(),
    createdAt: createdAt(),
    /** The writing transaction's id: the order of GET /notifications/stream. */
    streamXid: streamXid(),
  },
  (t) => [
    index('tea_notifications_user_idx').on(t.userId, t.createdAt),
    index('tea_notifications_batch_idx').on(t.batchId, t.createdAt),
    index('tea_notifications_stream_idx').on(t.userId, t.streamXid, t.id),
    index('tea_notifications_stream_wide_idx').on(t.streamXid, t.id).where(sql`${t.userId} is null`),
  ],
);

/**
 * Where withdrawn tea drops stood in the stream's order (a FAQ deleted or back to draft takes its
 * "New FAQ" drop away): a client whose last event was such a drop resumes after its place, so what
 * arrived while it was away is not lost.
 */
export const teaWithdrawals = pgTable(
  'tea_withdrawals',
  {
    id: uuid().primaryKey(),
    userId: uuid().references(() => users.id, { onDelete: 'cascade' }),
    streamXid: xid8('stream_xid').notNull(),
    withdrawnAt: tstz('withdrawn_at').notNull().defaultNow(),
  },
  // The retention job deletes them by age (TEA_WITHDRAWAL_RETENTION_DAYS).
  (t) => [index('tea_withdrawals_withdrawn_at_idx').on(t.withdrawnAt)],
);

export const teaNotificationReads = pgTable(
  'tea_notification_reads',
  {
    teaNotificationId: uuid()
      .notNull()
      .references(() => teaNotifications.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    readAt: tstz('read_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teaNotificationId, t.userId] })],
);

export const reputationLogs = pgTable(
  'reputation_logs',
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    batchId: uuid().references(() => batches.id),
    points: integer().notNull(),
    reason: text().notNull(),
    sourceType: text(),
    sourceId: uuid(),
    /**
     * The event this row counts (`post_vote:<postId>:<voterId>`, `comment_accepted:<commentId>`, ...).
     * At most one live (not reversed) award per key: the same event never counts twice.
     */
    sourceKey: text(),
    /** Set on a reversal row: the award it takes back (each award is reversed at most once). */
    reversesId: uuid(),
    /** Set on an award once it has been reversed; the reversal is a row of its own. */
    reversedAt: tstz('reversed_at'),
    awardedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('reputation_logs_user_idx').on(t.userId, t.createdAt),
    index('reputation_logs_batch_idx').on(t.batchId),
    index('reputation_logs_user_batch_idx').on(t.userId, t.batchId, t.createdAt),
    uniqueIndex('reputation_logs_live_source_key')
      .on(t.sourceKey)
      .where(sql`${t.sourceKey} is not null and ${t.reversesId} is null and ${t.reversedAt} is null`),
    uniqueIndex('reputation_logs_reverses_key').on(t.reversesId).where(sql`${t.reversesId} is not null`),
  ],
);

/**
 * Running reputation totals per program, user and period (all time, the UTC calendar week from
 * Monday, the UTC calendar month), moved by the same transaction that writes the log row, so the
 * leaderboard reads the top of an index instead of summing the log.
 */
export const reputationTotals = pgTable(
  'reputation_totals',
  {
    batchId: uuid()
      .notNull()
      .references(() => batches.id, { onDelete: 'cascade' }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** all, week or month. */
    period: text().notNull(),
    /** First day of the period (1970-01-01 for all). */
    periodStart: date({ mode: 'string' }).notNull(),
    points: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.batchId, t.period, t.periodStart, t.userId] }),
    index('reputation_totals_rank_idx').on(t.batchId, t.period, t.periodStart, t.points.desc(), t.userId),
  ],
);

/**
 * How many users have positive points on each leaderboard (program, period, period start): the
 * leaderboard's total without counting the board. Kept by a deferred trigger on reputation_totals
 * (migration 0025), which moves it when a user's points cross zero, however the row changes
 * (awards, reversals, a deleted user's cascade).
 */
export const reputationBoardSizes = pgTable(
  'reputation_board_sizes',
  {
    batchId: uuid()
      .notNull()
      .references(() => batches.id, { onDelete: 'cascade' }),
    period: text().notNull(),
    periodStart: date({ mode: 'string' }).notNull(),
    users: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.batchId, t.period, t.periodStart] })],
);

/**
 * How many users have each positive points value on each leaderboard (program, period, period start),
 * as appended counts: statement triggers on reputation_totals (migration 0028) add a row per changed
 * value (+n, -n) and never update one, so no writer waits on another; the analytics rollup job folds
 * them into one row per value. A rank is 1 + the sum of the counts above the user's points: as many
 * rows as distinct values (and recent changes), not as users. No foreign key: a program's cascade
 * delete appends rows for it while its batch row is going.
 */
export const reputationPointCounts = pgTable(
  'reputation_point_counts',
  {
    batchId: uuid().notNull(),
    period: text().notNull(),
    periodStart: date({ mode: 'string' }).notNull(),
    points: integer().notNull(),
    users: integer().notNull(),
  },
  (t) => [index('reputation_point_counts_idx').on(t.batchId, t.period, t.periodStart, t.points, t.users)],
);

/** A badge held by a user in a program; revoked badges keep their row. */
export const badges = pgTable(
  'badges',
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    batchId: uuid().references(() => batches.id),
    name: text().notNull(),
    reason: text(),
    awardedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    awardedAt: tstz('awarded_at').notNull().defaultNow(),
    revokedAt: tstz('revoked_at'),
    revokedBy: uuid().references(() => users.id, { onDelete: 'set null' }),
    revokeReason: text(),
  },
  (t) => [
    // Atomic awards (first_responder): at most one live badge of a name per user and program.
    uniqueIndex('badges_live_key')
      .on(t.userId, t.name, sql`coalesce(${t.batchId}, '00000000-0000-0000-0000-000000000000'::uuid)`)
      .where(sql`${t.revokedAt} is null`),
    index('badges_batch_idx').on(t.batchId),
  ],
);

export const supportRequests = pgTable(
  'support_requests',
  {
    id: id(),
    userId: uuid().references(() => users.id, { onDelete: 'set null' }),
    batchId: uuid().references(() => batches.id),
    subject: text().notNull(),
    body: text().notNull(),
    status: supportRequestStatus().notNull().default('open'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('support_requests_batch_idx').on(t.batchId), index('support_requests_user_idx').on(t.userId)],
);
