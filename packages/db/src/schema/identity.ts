import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, tstz, updatedAt } from './columns.js';
import { userRole, userStatus } from './enums.js';

export const users = pgTable(
  'users',
  {
    id: id(),
    /** Stored normalised (trimmed, lower-case); unique. */
    email: text().notNull(),
    passwordHash: text().notNull(),
    name: text().notNull(),
    role: userRole().notNull().default('user'),
    status: userStatus().notNull().default('active'),
    suspendedAt: tstz('suspended_at'),
    suspendedUntil: tstz('suspended_until'),
    suspendedReason: text(),
    /** Total across programs; per-program points live in reputation_logs. */
    reputation: integer().notNull().default(0),
    bio: text(),
    avatarUrl: text(),
    // Two-factor (TOTP): the secret is AES-256-GCM encrypted with the row id as additional data.
    totpSecret: text(),
    totpPendingSecret: text(),
    totpEnabled: boolean().notNull().default(false),
    /** Last accepted 30 s step; a code for this step or an earlier one is a replay. */
    totpLastUsedStep: bigint({ mode: 'number' }),
    // Meeting provider (conf) connection; tokens encrypted at rest.
    confConnected: boolean().notNull().default(false),
    confUserId: text(),
    confEmail: text(),
    confAccessToken: text(),
    confRefreshToken: text(),
    confTokenExpiresAt: tstz('conf_token_expires_at'),
    /** One token refresh at a time per user, without a transaction held across the provider call. */
    confRefreshLeaseUntil: tstz('conf_refresh_lease_until'),
    confConnectedAt: tstz('conf_connected_at'),
    lastLoginAt: tstz('last_login_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    uniqueIndex('users_conf_user_id_key').on(t.confUserId).where(sql`${t.confUserId} is not null`),
    index('users_role_idx').on(t.role),
    // Dashboards: accounts created in a range (analytics/).
    index('users_created_idx').on(t.createdAt),
    // Suspensions with an end: the ones over by now no longer count (admin stats; few rows).
    index('users_suspension_end_idx').on(t.suspendedUntil).where(sql`${t.status} = 'suspended' and ${t.suspendedUntil} is not null`),
  ],
);

/**
 * Accounts by role and status, as appended counts: statement triggers on users (migration 0028) add
 * a row per (role, status) an insert, delete or change moves (+n, -n), never updating one, so
 * signups do not queue on a shared row; the analytics rollup job folds them into one row per pair.
 * `GET /admin/stats` sums this table instead of counting the users.
 */
export const userCounts = pgTable('user_counts', {
  role: userRole().notNull(),
  status: userStatus().notNull(),
  users: integer().notNull(),
});

export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** All tokens descended from one login share a family; reuse of a rotated token revokes it. */
    familyId: uuid().notNull(),
    /** SHA-256 of the opaque token; the token itself is never stored. */
    tokenHash: text().notNull(),
    expiresAt: tstz('expires_at').notNull(),
    rotatedAt: tstz('rotated_at'),
    revokedAt: tstz('revoked_at'),
    /** Revoked because a spent token of its family was replayed (not a logout, a password change...). */
    revokedForReuse: boolean('revoked_for_reuse').notNull().default(false),
    userAgent: text(),
    ip: text(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('refresh_tokens_token_hash_key').on(t.tokenHash),
    index('refresh_tokens_user_idx').on(t.userId),
    index('refresh_tokens_family_idx').on(t.familyId),
    index('refresh_tokens_expires_at_idx').on(t.expiresAt),
  ],
);

export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text().notNull(),
    usedAt: tstz('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId)],
);

/** OAuth `state` for the conf connect flow: HMAC-signed, single use, 10 minutes. */
export const confOauthStates = pgTable(
  'conf_oauth_states',
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    nonce: text().notNull(),
    // The redirect_uri the authorization request sent: the code exchange must send it again, identical
    // (RFC 6749 4.1.3), whichever API process the browser comes back to (each one's default differs by
    // its PORT). Null on rows written before migration 0046: the process's own then.
    redirectUri: text('redirect_uri'),
    expiresAt: tstz('expires_at').notNull(),
    usedAt: tstz('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('conf_oauth_states_nonce_key').on(t.nonce)],
);
