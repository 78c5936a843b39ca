import type { DbOrTx } from '@cfaq/db';
import { refreshTokens, users } from '@cfaq/db/schema/index';
import { and, count, desc, eq, gt, ilike, isNull, ne, not, or, type SQL, sql } from 'drizzle-orm';
import { adminLogBy, writeAdminLog } from '../audit/index.js';
import { withdrawAiAnswerVotesOf } from '../auto-answer/accountability.js';
import { withdrawVotesOf } from '../community/votes.js';
import { confConnectedNow } from '../conf/tokens.js';
import type { CoreContext } from '../context.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { Code, notFound, unprocessable } from '../errors/index.js';
import { withdrawFeedbackOf } from '../faqs/feedback.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import type { Role, UserDetail, UserJson, UserStatus } from './shape.js';

/** Explicit columns: secrets are never even read into a listing. */
export const userColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  status: users.status,
  suspendedUntil: users.suspendedUntil,
  reputation: users.reputation,
  bio: users.bio,
  avatarUrl: users.avatarUrl,
  totpEnabled: users.totpEnabled,
  confConnected: users.confConnected,
  confUserId: users.confUserId,
  confConnectedAt: users.confConnectedAt,
  // Encrypted; read only to tell whether they still decrypt (confConnectedNow), never shown.
  confAccessToken: users.confAccessToken,
  confRefreshToken: users.confRefreshToken,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};

export type UserRow = {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: UserStatus;
  suspendedUntil: Date | null;
  reputation: number;
  bio: string | null;
  avatarUrl: string | null;
  totpEnabled: boolean;
  confConnected: boolean;
  confUserId: string | null;
  confConnectedAt: Date | null;
  confAccessToken: string | null;
  confRefreshToken: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** A suspension whose `until` has passed no longer counts (same rule as the auth check). */
export const isSuspended = (row: { status: string; suspendedUntil: Date | null }, now: Date) =>
  row.status === 'suspended' && (row.suspendedUntil === null || row.suspendedUntil > now);

/** isSuspended as a condition on the users row: a suspension whose `until` has passed is not in force. */
export const suspensionInForce = (now: Date) =>
  and(eq(users.status, 'suspended'), or(isNull(users.suspendedUntil), gt(users.suspendedUntil, now))) as SQL;

/** Admins whose account is in use: every admin not under a suspension in force. */
export const activeAdmins = (now: Date) => and(eq(users.role, 'admin'), not(suspensionInForce(now))) as SQL;

export function toUserJson(row: UserRow, now: Date, secrets: Pick<SecretBox, 'decrypt'>): UserJson {
  const connected = confConnectedNow(secrets, row);
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: isSuspended(row, now) ? 'suspended' : 'active',
    reputation: row.reputation,
    bio: row.bio,
    avatarUrl: row.avatarUrl,
    twoFactorEnabled: row.totpEnabled,
    confConnected: connected,
    // A disconnected account (or one whose tokens no longer decrypt) shows no provider id.
    confUserId: connected ? row.confUserId : null,
    confConnectedAt: connected ? row.confConnectedAt : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function getUser(ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>, userId: string): Promise<UserJson> {
  const [row] = await ctx.db.select(userColumns).from(users).where(eq(users.id, userId)).limit(1);
  if (!row) throw notFound('User', Code.USER_NOT_FOUND);
  return toUserJson(row, ctx.clock.now(), ctx.secrets);
}

/** The admin view of one user: the user plus suspension terms and last sign-in. */
export async function getUserDetail(ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>, userId: string): Promise<UserDetail> {
  const [row] = await ctx.db
    .select({ ...userColumns, suspendedAt: users.suspendedAt, suspendedReason: users.suspendedReason, lastLoginAt: users.lastLoginAt })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!row) throw notFound('User', Code.USER_NOT_FOUND);
  const user = toUserJson(row, ctx.clock.now(), ctx.secrets);
  const suspended = user.status === 'suspended';
  return {
    ...user,
    suspendedAt: suspended ? row.suspendedAt : null,
    suspendedUntil: suspended ? row.suspendedUntil : null,
    suspendedReason: suspended ? row.suspendedReason : null,
    lastLoginAt: row.lastLoginAt,
  };
}

export interface UserListQuery extends PageQuery {
  role?: Role;
  status?: UserStatus;
  /** Matches name or email (case-insensitive substring). */
  q?: string;
}

export async function listUsers(ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>, q: UserListQuery): Promise<Page<UserJson>> {
  const w = pageWindow(q);
  const conds: SQL[] = [];
  if (q.role) conds.push(eq(users.role, q.role));
  // Effective status: a suspension whose `until` has passed counts as active.
  const now = ctx.clock.now();
  const inForce = suspensionInForce(now);
  if (q.status === 'suspended') conds.push(inForce);
  if (q.status === 'active') conds.push(not(inForce));
  if (q.q) {
    const like = `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(or(ilike(users.name, like), ilike(users.email, like)) as SQL);
  }
  const where = conds.length ? and(...conds) : undefined;
  const [rows, [total]] = await Promise.all([
    ctx.db.select(userColumns).from(users).where(where).orderBy(desc(users.createdAt), desc(users.id)).limit(w.limit).offset(w.offset),
    ctx.db.select({ n: count() }).from(users).where(where),
  ]);
  return toPage(
    rows.map((r) => toUserJson(r, now, ctx.secrets)),
    total?.n ?? 0,
    w,
  );
}

export interface ProfileUpdate {
  name?: string;
  bio?: string | null;
  avatarUrl?: string | null;
}

/** Only name, bio and avatar: role, reputation and status are never settable here. */
export async function updateProfile(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>,
  userId: string,
  patch: ProfileUpdate,
): Promise<UserJson> {
  const set: ProfileUpdate = {};
  if (patch.name !== undefined) set.name = patch.name.trim();
  if (patch.bio !== undefined) set.bio = patch.bio;
  if (patch.avatarUrl !== undefined) set.avatarUrl = patch.avatarUrl;
  if (Object.keys(set).length === 0) return getUser(ctx, userId);
  const [row] = await ctx.db
    .update(users)
    .set({ ...set, updatedAt: ctx.clock.now() })
    .where(eq(users.id, userId))
    .returning(userColumns);
  if (!row) throw notFound('User', Code.USER_NOT_FOUND);
  return toUserJson(row, ctx.clock.now(), ctx.secrets);
}

/**
 * Revokes every live refresh token of a user (logout everywhere, password change, suspension), or of one
 * sign-in (`familyId`; `forReuse` when a spent token of it was replayed, so its tokens answer
 * REFRESH_TOKEN_REUSED rather than INVALID_REFRESH_TOKEN). The user's row is locked first, against which a refresh takes its share lock
 * before it rotates (sessions.ts): a refresh under way finishes first and its new token is revoked too,
 * or it starts after and finds its token revoked. Without it a token a refresh inserted, not yet
 * committed, escaped the revocation (and a suspension racing a refresh deadlocked on the two rows).
 */
export async function revokeUserTokens(
  db: DbOrTx,
  userId: string,
  now: Date,
  familyId?: string,
  opts: { forReuse?: boolean } = {},
): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
    const rows = await tx
      .update(refreshTokens)
      .set({ revokedAt: now, revokedForReuse: opts.forReuse ?? false })
      .where(
        and(eq(refreshTokens.userId, userId), familyId ? eq(refreshTokens.familyId, familyId) : undefined, isNull(refreshTokens.revokedAt)),
      )
      .returning({ id: refreshTokens.id });
    return rows.length;
  });
}

/**
 * Serialises every change that can reduce the set of active admins (demote, delete, suspend), so two
 * admins demoting each other at once cannot leave none: the second waits for the first to commit
 * and then counts what is left.
 */
export async function lockAdminSet(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('cfaq:admin-set'))`);
}

/**
 * Refuses (422 LAST_ADMIN) when no other active admin would remain (one whose suspension has ended
 * counts as active, as everywhere). Call inside `lockAdminSet`.
 */
export async function assertAnotherActiveAdmin(tx: DbOrTx, userId: string, now: Date): Promise<void> {
  const [row] = await tx
    .select({ n: count() })
    .from(users)
    .where(and(activeAdmins(now), ne(users.id, userId)));
  if ((row?.n ?? 0) === 0) throw unprocessable(Code.LAST_ADMIN, 'The last active admin cannot be demoted, suspended or deleted');
}

export interface AdminActor {
  id: string;
  ip?: string;
}

/** Changes a user's role; effective on that user's next request. Logged to admin_logs. */
export async function changeUserRole(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>,
  actor: AdminActor,
  params: { userId: string; role: Role },
): Promise<UserJson> {
  const row = await ctx.db.transaction(async (tx) => {
    // Always the admin-set lock first, then the row: one lock order for every admin-set change.
    await lockAdminSet(tx);
    const [current] = await tx.select({ role: users.role }).from(users).where(eq(users.id, params.userId)).for('update');
    if (!current) throw notFound('User', Code.USER_NOT_FOUND);
    if (current.role === 'admin' && params.role !== 'admin') await assertAnotherActiveAdmin(tx, params.userId, ctx.clock.now());
    const [updated] = await tx
      .update(users)
      .set({ role: params.role, updatedAt: ctx.clock.now() })
      .where(eq(users.id, params.userId))
      .returning(userColumns);
    if (current.role !== params.role) {
      await writeAdminLog(tx, {
        ...adminLogBy(actor),
        action: 'user.role_changed',
        targetType: 'User',
        targetId: params.userId,
        details: { from: current.role, to: params.role },
      });
    }
    return updated as UserRow;
  });
  return toUserJson(row, ctx.clock.now(), ctx.secrets);
}

/**
 * Deletes a user for good. Their votes (on posts, comments and AI answers) and FAQ feedback are
 * withdrawn first (counters, scores and the authors' points follow, as for a vote clicked off); the
 * schema decides the rest: personal data (tokens, notifications, reputation, badges) is deleted with
 * them; content they wrote (posts, comments, FAQs) stays with its author set to null. Logged to admin_logs.
 */
export async function deleteUser(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>,
  actor: AdminActor,
  params: { userId: string },
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    // Lock first, then read: a concurrent demotion of another admin cannot slip between check and delete.
    await lockAdminSet(tx);
    // Their posts and comments before their row: a vote on their content locks the content, then their
    // row (the points' foreign key); the delete took their row, then (setting the author to null) the
    // content, and every vote arriving meanwhile deadlocked it.
    await tx.execute(sql`select 1 from community_posts where author_id = ${params.userId} order by id for no key update`);
    await tx.execute(sql`select 1 from comments where author_id = ${params.userId} order by id for no key update`);
    const [current] = await tx
      .select({ role: users.role, email: users.email })
      .from(users)
      .where(eq(users.id, params.userId))
      .for('update');
    if (!current) throw notFound('User', Code.USER_NOT_FOUND);
    if (current.role === 'admin') await assertAnotherActiveAdmin(tx, params.userId, ctx.clock.now());
    await withdrawVotesOf(tx, params.userId);
    await withdrawFeedbackOf(tx, params.userId);
    await withdrawAiAnswerVotesOf(tx, params.userId, ctx.clock.now());
    await tx.delete(users).where(eq(users.id, params.userId));
    await writeAdminLog(tx, {
      actorId: actor.id === params.userId ? null : actor.id,
      action: 'user.deleted',
      targetType: 'User',
      targetId: params.userId,
      details: { role: current.role },
      ...(actor.ip ? { ip: actor.ip } : {}),
    });
  });
}
