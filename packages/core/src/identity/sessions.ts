import { createHmac, randomUUID } from 'node:crypto';
import type { DbOrTx } from '@cfaq/db';
import { refreshTokens, users } from '@cfaq/db/schema/index';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { randomToken, sha256Hex } from '../crypto/tokens.js';
import { Code, forbidden, unauthorized } from '../errors/index.js';
import { DAY_MS } from '../runtime/clock.js';
import type { UserJson } from './shape.js';
import { isSuspended, revokeUserTokens, toUserJson, type UserRow, userColumns } from './users.js';

/**
 * Signs and reads the JWTs, supplied by the API (it owns JWT_SECRET and the pinned algorithm).
 * Access tokens authenticate requests; challenge tokens (typ '2fa') only complete a two-factor login.
 */
export interface TokenSigner {
  accessToken(userId: string): string;
  /** Lifetime of an access token in seconds (JWT_ACCESS_TTL_SECONDS). */
  readonly accessTtlSeconds: number;
  /** A challenge for a login that passed its password at `issuedAt` (the service clock). */
  challengeToken(userId: string, issuedAt: Date): string;
  /** The user and issue time of a valid, unexpired challenge token; null otherwise. */
  readChallenge(token: string): { userId: string; issuedAt: Date } | null;
}

/** Who is asking, recorded on the refresh token row. */
export interface ClientMeta {
  ip?: string;
  userAgent?: string;
}

export interface Session {
  accessToken: string;
  /** Opaque; stored only as its SHA-256; single use (rotated by POST /auth/refresh). */
  refreshToken: string;
  /** Access token lifetime in seconds. */
  expiresIn: number;
  user: UserJson;
}

/** Stores a new refresh token (a new family unless one is given) and returns the opaque value. */
export async function createRefreshToken(
  db: DbOrTx,
  ctx: Pick<CoreContext, 'config' | 'clock'>,
  params: { userId: string; familyId?: string; meta?: ClientMeta; token?: string },
): Promise<string> {
  const token = params.token ?? randomToken(32);
  await db.insert(refreshTokens).values({
    userId: params.userId,
    familyId: params.familyId ?? randomUUID(),
    tokenHash: sha256Hex(token),
    expiresAt: new Date(ctx.clock.now().getTime() + ctx.config.JWT_REFRESH_TTL_DAYS * DAY_MS),
    userAgent: params.meta?.userAgent?.slice(0, 512) ?? null,
    ip: params.meta?.ip ?? null,
  });
  return token;
}

/** The user's row as a new session finds it, locked. */
export type LockedUser = UserRow & { passwordHash: string; lastLoginAt: Date | null };

/**
 * A fresh session (new refresh-token family) for a user row that has passed every check. `recheck`
 * sees the row again, locked, and throws when what was checked no longer holds (a sign-in by password:
 * the password changed meanwhile; a two-factor sign-in: another sign-in or a password change since).
 */
export async function startSession(
  ctx: Pick<CoreContext, 'db' | 'config' | 'clock' | 'secrets'>,
  signer: TokenSigner,
  user: UserRow,
  meta: ClientMeta = {},
  opts: { recheck?: (current: LockedUser) => void | Promise<void> } = {},
): Promise<Session> {
  const now = ctx.clock.now();
  const refreshToken = await ctx.db.transaction(async (tx) => {
    // The user's row locked, as every revocation locks it (revokeUserTokens): a password change or a
    // suspension that committed while the password was being checked is seen here, and one that comes
    // after waits for this token and revokes it.
    const [current] = await tx
      .select({ ...userColumns, passwordHash: users.passwordHash, lastLoginAt: users.lastLoginAt })
      .from(users)
      .where(eq(users.id, user.id))
      .for('no key update');
    if (!current) throw unauthorized('Email or password is incorrect', Code.INVALID_CREDENTIALS);
    await opts.recheck?.(current);
    if (isSuspended(current, now)) throw forbidden('This account is suspended', Code.ACCOUNT_SUSPENDED);
    const token = await createRefreshToken(tx, ctx, { userId: user.id, meta });
    await tx.update(users).set({ lastLoginAt: now }).where(eq(users.id, user.id));
    return token;
  });
  return sessionOf(signer, user, refreshToken, now, ctx.secrets);
}

export const sessionOf = (
  signer: TokenSigner,
  user: UserRow,
  refreshToken: string,
  now: Date,
  secrets: Pick<SecretBox, 'decrypt'>,
): Session => ({
  accessToken: signer.accessToken(user.id),
  refreshToken,
  expiresIn: signer.accessTtlSeconds,
  user: toUserJson(user, now, secrets),
});

const invalidRefresh = () => unauthorized('The refresh token is invalid, expired or revoked', Code.INVALID_REFRESH_TOKEN);

/**
 * The successor of a refresh token is derived from it under a server key, not drawn at random: a
 * retry within the grace window can then be answered the same successor without storing any token
 * in plain text. Without the server key a stolen token says nothing about its successor.
 */
function successorOf(ctx: Pick<CoreContext, 'config'>, token: string): string | undefined {
  const secret = ctx.config.JWT_SECRET ?? ctx.config.ENCRYPTION_KEY;
  // Without a server key (never at runtime: production requires one, development generates one) the
  // successor is random and there is no grace.
  if (!secret) return undefined;
  return createHmac('sha256', `refresh-successor:${secret}`).update(token).digest('base64url');
}

type RefreshOutcome = { kind: 'ok'; user: UserRow; next: string } | { kind: 'suspended' } | { kind: 'rejected' };

/**
 * Rotates a refresh token (RFC 9700 section 4.14.2). One conditional UPDATE marks it used, so of
 * concurrent refreshes with one token exactly one rotates; the others (a second tab, a client retry)
 * arrive within REFRESH_REUSE_GRACE_SECONDS and get the same successor while it is still current.
 * Presenting a used token later, or after its successor was itself used, is treated as theft: the
 * whole family is revoked and the caller must sign in again.
 */
export async function refreshSession(
  ctx: Pick<CoreContext, 'db' | 'config' | 'clock' | 'log' | 'secrets'>,
  signer: TokenSigner,
  token: string,
  meta: ClientMeta = {},
): Promise<Session> {
  const hash = sha256Hex(token);
  const now = ctx.clock.now();
  const rotated = await ctx.db.transaction(async (tx): Promise<RefreshOutcome> => {
    // The owner's row first, shared: a revocation of the user's tokens (revokeUserTokens) locks it too,
    // so it waits for this rotation and revokes its new token, or this one waits and finds its token revoked.
    const [owner] = await tx.select({ userId: refreshTokens.userId }).from(refreshTokens).where(eq(refreshTokens.tokenHash, hash)).limit(1);
    if (!owner) return { kind: 'rejected' };
    const [user] = await tx.select(userColumns).from(users).where(eq(users.id, owner.userId)).for('share');
    if (!user) return { kind: 'rejected' };
    // A suspended account is told so whatever its token's state: a suspension revokes every token, and
    // answering those with "already used; sessions revoked" would read as a stolen token, not a suspension.
    if (isSuspended(user, now)) return { kind: 'suspended' };
    const [used] = await tx
      .update(refreshTokens)
      .set({ rotatedAt: now })
      .where(
        and(
          eq(refreshTokens.tokenHash, hash),
          isNull(refreshTokens.rotatedAt),
          isNull(refreshTokens.revokedAt),
          gt(refreshTokens.expiresAt, now),
        ),
      )
      .returning({ userId: refreshTokens.userId, familyId: refreshTokens.familyId });
    if (!used) return { kind: 'rejected' };
    const next = await createRefreshToken(tx, ctx, {
      userId: user.id,
      familyId: used.familyId,
      meta,
      token: successorOf(ctx, token) ?? randomToken(32),
    });
    return { kind: 'ok', user, next };
  });
  const result = rotated.kind === 'rejected' ? await withinGrace(ctx, token, now) : rotated;
  if (result.kind === 'suspended') throw forbidden('This account is suspended', Code.ACCOUNT_SUSPENDED);
  if (result.kind === 'ok') return sessionOf(signer, result.user, result.next, now, ctx.secrets);

  // Not usable: unknown, expired, revoked, or already used. Replaying a used (rotated) token revokes its
  // family, and every token of a family revoked so says why; a token revoked by a logout, a password
  // change or a suspension is merely invalid (nothing was replayed), rotated or not: a second tab's
  // retry with the token just rotated, after a logout in the first, was answered as a theft.
  const [row] = await ctx.db
    .select({
      userId: refreshTokens.userId,
      familyId: refreshTokens.familyId,
      rotatedAt: refreshTokens.rotatedAt,
      revokedAt: refreshTokens.revokedAt,
      revokedForReuse: refreshTokens.revokedForReuse,
    })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, hash))
    .limit(1);
  const endedWithoutReplay = row?.revokedAt != null && !row.revokedForReuse;
  const replayed = row?.rotatedAt != null && !endedWithoutReplay;
  if (replayed) {
    const revoked = await revokeUserTokens(ctx.db, row.userId, now, row.familyId, { forReuse: true });
    ctx.log.warn({ familyId: row.familyId, revoked }, 'refresh token reused: family revoked');
  }
  if (replayed || row?.revokedForReuse) {
    throw unauthorized('This refresh token was already used; every session of its sign-in was revoked', Code.REFRESH_TOKEN_REUSED);
  }
  throw invalidRefresh();
}

/**
 * A token rotated at most REFRESH_REUSE_GRACE_SECONDS ago, not revoked, whose successor is still
 * current (not rotated, revoked or expired): the same successor again. Anything else is rejected.
 */
async function withinGrace(ctx: Pick<CoreContext, 'db' | 'config' | 'clock'>, token: string, now: Date): Promise<RefreshOutcome> {
  const graceMs = ctx.config.REFRESH_REUSE_GRACE_SECONDS * 1000;
  if (graceMs <= 0) return { kind: 'rejected' };
  const [row] = await ctx.db
    .select({ rotatedAt: refreshTokens.rotatedAt, revokedAt: refreshTokens.revokedAt, familyId: refreshTokens.familyId })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, sha256Hex(token)))
    .limit(1);
  if (!row?.rotatedAt || row.revokedAt || now.getTime() - row.rotatedAt.getTime() > graceMs) return { kind: 'rejected' };
  const next = successorOf(ctx, token);
  if (!next) return { kind: 'rejected' };
  const [successor] = await ctx.db
    .select({ userId: refreshTokens.userId })
    .from(refreshTokens)
    .where(
      and(
        eq(refreshTokens.tokenHash, sha256Hex(next)),
        eq(refreshTokens.familyId, row.familyId),
        isNull(refreshTokens.rotatedAt),
        isNull(refreshTokens.revokedAt),
        gt(refreshTokens.expiresAt, now),
      ),
    )
    .limit(1);
  if (!successor) return { kind: 'rejected' };
  const [user] = await ctx.db.select(userColumns).from(users).where(eq(users.id, successor.userId)).limit(1);
  if (!user) return { kind: 'rejected' };
  if (isSuspended(user, now)) return { kind: 'suspended' };
  return { kind: 'ok', user, next };
}

/**
 * Logout: revokes the family of the given refresh token (this sign-in on every device it was
 * rotated to). Unknown tokens are ignored so the answer reveals nothing. `allSessions` revokes every
 * refresh token of the owner and needs a token that is still current (not rotated, revoked or
 * expired): an old token taken from a device must not sign its owner out everywhere.
 */
export async function logout(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'config' | 'log'>,
  token: string,
  opts: { allSessions?: boolean } = {},
): Promise<void> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .select({
      userId: refreshTokens.userId,
      familyId: refreshTokens.familyId,
      rotatedAt: refreshTokens.rotatedAt,
      revokedAt: refreshTokens.revokedAt,
      expiresAt: refreshTokens.expiresAt,
    })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, sha256Hex(token)))
    .limit(1);
  if (opts.allSessions) {
    const current = row && !row.rotatedAt && !row.revokedAt && row.expiresAt > now;
    if (!current) throw unauthorized('Signing out everywhere needs a current refresh token', Code.INVALID_REFRESH_TOKEN);
    await revokeUserTokens(ctx.db, row.userId, now);
    return;
  }
  if (!row) return;
  // A token already used is a replay here too, unless the refresh grace would still hand out its unused
  // successor (a second tab's retry): ended as a plain logout, its family answered every later replay
  // as merely invalid, and no theft was ever reported.
  const replayed = row.rotatedAt !== null && !row.revokedAt && (await withinGrace(ctx, token, now)).kind === 'rejected';
  const revoked = await revokeUserTokens(ctx.db, row.userId, now, row.familyId, { forReuse: replayed });
  if (replayed) ctx.log.warn({ familyId: row.familyId, revoked }, 'refresh token reused (logout): family revoked');
}
