import { users } from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { badRequest, Code, conflict, forbidden, unauthorized } from '../errors/index.js';
import { hashPassword, needsRehash, normalizeEmail, verifyPassword } from './password.js';
import { PASSWORD_MAX, PASSWORD_MIN, passwordLengthAllowed } from './password-rule.js';
import { type ClientMeta, createRefreshToken, type Session, sessionOf, startSession, type TokenSigner } from './sessions.js';
import { isSuspended, revokeUserTokens, userColumns } from './users.js';

export { PASSWORD_MAX, PASSWORD_MIN };

type Ctx = Pick<CoreContext, 'db' | 'config' | 'clock' | 'log' | 'secrets'>;

function checkPassword(path: string, password: string) {
  if (!passwordLengthAllowed(password)) {
    throw badRequest(Code.VALIDATION_FAILED, `${path} must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters`, [
      { path, message: `must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters` },
    ]);
  }
}

/** Creates a `user` account (email normalised and unique) and signs it in. */
export async function register(
  ctx: Ctx,
  signer: TokenSigner,
  params: { email: string; password: string; name: string },
  meta: ClientMeta = {},
): Promise<Session> {
  checkPassword('body.password', params.password);
  const email = normalizeEmail(params.email);
  const passwordHash = await hashPassword(params.password, ctx.config);
  const [row] = await ctx.db
    .insert(users)
    .values({ email, passwordHash, name: params.name.trim(), role: 'user' })
    .onConflictDoNothing()
    .returning(userColumns);
  if (!row) throw conflict(Code.EMAIL_TAKEN, 'An account with this email already exists');
  return startSession(ctx, signer, row, meta);
}

export interface TwoFactorChallenge {
  twoFactorRequired: true;
  challengeToken: string;
}

// Verified against when the email is unknown, so both failures take the same time (one per cost).
const dummyHashes = new Map<string, Promise<string>>();
function dummyHash(ctx: Ctx): Promise<string> {
  const key = `${ctx.config.PASSWORD_HASH_MEMORY_KIB}/${ctx.config.PASSWORD_HASH_ITERATIONS}/${ctx.config.PASSWORD_HASH_PARALLELISM}`;
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = hashPassword('not-a-real-password', ctx.config);
    dummyHashes.set(key, hash);
  }
  return hash;
}

/**
 * Email and password. Unknown email and wrong password are the same 401; a suspended account is
 * refused (403) only after its password checked out. With two-factor on, the answer is a challenge
 * to complete at POST /auth/2fa/verify instead of tokens.
 */
export async function login(
  ctx: Ctx,
  signer: TokenSigner,
  params: { email: string; password: string },
  meta: ClientMeta = {},
): Promise<Session | TwoFactorChallenge> {
  const email = normalizeEmail(params.email);
  const [row] = await ctx.db
    .select({ ...userColumns, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.email, email))
    .limit(1);
  if (!row) {
    await verifyPassword(await dummyHash(ctx), params.password);
    throw unauthorized('Email or password is incorrect', Code.INVALID_CREDENTIALS);
  }
  if (!(await verifyPassword(row.passwordHash, params.password))) {
    throw unauthorized('Email or password is incorrect', Code.INVALID_CREDENTIALS);
  }
  if (isSuspended(row, ctx.clock.now())) throw forbidden('This account is suspended', Code.ACCOUNT_SUSPENDED);
  const checkedHashes = [row.passwordHash];
  if (needsRehash(row.passwordHash, ctx.config)) {
    // The cost changed since this hash was made: store one at today's cost while the password is at hand.
    const rehashed = await hashPassword(params.password, ctx.config);
    checkedHashes.push(rehashed);
    await ctx.db
      .update(users)
      .set({ passwordHash: rehashed })
      .where(and(eq(users.id, row.id), eq(users.passwordHash, row.passwordHash)));
  }
  if (row.totpEnabled) return { twoFactorRequired: true, challengeToken: signer.challengeToken(row.id, ctx.clock.now()) };
  const { passwordHash: _omit, ...user } = row;
  // A password changed while this one was being checked signs nobody in (its change revoked every
  // session). A hash other than the ones checked here (a parallel sign-in's rehash) is checked again.
  return startSession(ctx, signer, user, meta, {
    recheck: async (current) => {
      if (checkedHashes.includes(current.passwordHash) || (await verifyPassword(current.passwordHash, params.password))) return;
      throw unauthorized('Email or password is incorrect', Code.INVALID_CREDENTIALS);
    },
  });
}

/**
 * Changes the password after checking the current one, revokes every refresh token of the user
 * (all other sessions end) and answers a fresh session for this client. Access tokens already
 * issued stay valid until they expire (at most JWT_ACCESS_TTL_SECONDS).
 */
export async function changePassword(
  ctx: Ctx,
  signer: TokenSigner,
  userId: string,
  params: { currentPassword: string; newPassword: string },
  meta: ClientMeta = {},
): Promise<Session> {
  checkPassword('body.newPassword', params.newPassword);
  // Deleted since the token was checked: the token names nobody now (as the auth hook answers it).
  const gone = () => unauthorized('The access token is invalid or expired', Code.INVALID_TOKEN);
  const wrong = () =>
    badRequest(Code.WRONG_PASSWORD, 'The current password is incorrect', [{ path: 'body.currentPassword', message: 'is incorrect' }]);
  const [row] = await ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).limit(1);
  if (!row) throw gone();
  if (!(await verifyPassword(row.passwordHash, params.currentPassword))) throw wrong();
  const passwordHash = await hashPassword(params.newPassword, ctx.config);
  const now = ctx.clock.now();
  const { user, refreshToken } = await ctx.db.transaction(async (tx) => {
    // The row locked, as every revocation and new session locks it: what was checked (the password,
    // the account in good standing) is checked again as it is now. A suspension that committed while
    // the password was hashed is seen here (its revocation would not cover the session answered below);
    // of two changes at once the second finds the password replaced and is refused; a sign-in's
    // re-hash of the same password (a cost change) is no change of password.
    const [current] = await tx
      .select({ ...userColumns, passwordHash: users.passwordHash })
      .from(users)
      .where(eq(users.id, userId))
      .for('no key update');
    if (!current) throw gone();
    if (isSuspended(current, now)) throw forbidden('This account is suspended', Code.ACCOUNT_SUSPENDED);
    if (current.passwordHash !== row.passwordHash && !(await verifyPassword(current.passwordHash, params.currentPassword))) throw wrong();
    // The answer is a new sign-in (lastLoginAt): a two-factor challenge issued before it, with the old
    // password, is spent (POST /auth/2fa/verify refuses a challenge older than the last sign-in).
    const [updated] = await tx
      .update(users)
      .set({ passwordHash, updatedAt: now, lastLoginAt: now })
      .where(eq(users.id, userId))
      .returning(userColumns);
    if (!updated) throw gone();
    await revokeUserTokens(tx, userId, now);
    return { user: updated, refreshToken: await createRefreshToken(tx, ctx, { userId, meta }) };
  });
  return sessionOf(signer, user, refreshToken, now, ctx.secrets);
}
