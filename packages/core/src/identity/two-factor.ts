import { randomBytes } from 'node:crypto';
import { recoveryCodes, users } from '@cfaq/db/schema/index';
import { and, eq, isNull, lt, lte, or } from 'drizzle-orm';
import { generate, generateSecret, generateURI, verify } from 'otplib';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { sha256Hex } from '../crypto/tokens.js';
import { badRequest, Code, conflict, forbidden, notFound, unauthorized, unprocessable } from '../errors/index.js';
import type { DbOrTx } from '../shared/db.js';
import { type ClientMeta, type Session, startSession, type TokenSigner } from './sessions.js';
import { isSuspended, userColumns } from './users.js';

export const TOTP_ISSUER = 'community-faq';
export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;

/** The TOTP code of a secret at a moment (what an authenticator app shows then); for tests and tools. */
export const totpCodeAt = (secret: string, at: Date) =>
  generate({ secret, epoch: Math.floor(at.getTime() / 1000), period: TOTP_PERIOD_SECONDS });

type Ctx = Pick<CoreContext, 'db' | 'config' | 'clock' | 'log' | 'secrets'>;

const invalidCode = () =>
  badRequest(Code.INVALID_TWO_FACTOR_CODE, 'The code is wrong, expired or already used', [
    { path: 'body.code', message: 'is wrong, expired or already used' },
  ]);

/**
 * Checks a 6-digit TOTP code against the current and the previous 30 s step, and consumes its step:
 * one conditional UPDATE moves users.totp_last_used_step forward, so a code (or any older one) is
 * accepted once, even by two concurrent requests.
 */
async function consumeTotp(
  ctx: Pick<CoreContext, 'clock'>,
  db: DbOrTx,
  user: { id: string; totpLastUsedStep: number | null },
  secret: string,
  code: string,
): Promise<boolean> {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return false;
  const epoch = Math.floor(ctx.clock.now().getTime() / 1000);
  const result = await verify({
    secret,
    token,
    epoch,
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: [TOTP_PERIOD_SECONDS, 0],
    ...(user.totpLastUsedStep !== null ? { afterTimeStep: user.totpLastUsedStep } : {}),
  }).catch(() => ({ valid: false as const }));
  if (!result.valid || !('timeStep' in result)) return false;
  const claimed = await db
    .update(users)
    .set({ totpLastUsedStep: result.timeStep })
    .where(and(eq(users.id, user.id), or(isNull(users.totpLastUsedStep), lt(users.totpLastUsedStep, result.timeStep))))
    .returning({ id: users.id });
  return claimed.length === 1;
}

async function loadTotpUser(ctx: Pick<CoreContext, 'db'>, userId: string) {
  const [row] = await ctx.db
    .select({
      ...userColumns,
      totpSecret: users.totpSecret,
      totpPendingSecret: users.totpPendingSecret,
      totpLastUsedStep: users.totpLastUsedStep,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!row) throw notFound('User', Code.USER_NOT_FOUND);
  return row;
}

/**
 * Starts enrolment: a new secret, kept encrypted (AES-256-GCM, the user id as additional data) as
 * pending until a code confirms it. Admins only. Calling it again replaces the pending secret.
 */
export async function setupTwoFactor(ctx: Ctx, userId: string): Promise<{ secret: string; otpauthUrl: string }> {
  const user = await loadTotpUser(ctx, userId);
  if (user.role !== 'admin') throw forbidden('Two-factor authentication is for admins', Code.TWO_FACTOR_ADMIN_ONLY);
  if (user.totpEnabled) throw conflict(Code.TWO_FACTOR_ALREADY_ENABLED, 'Two-factor authentication is already enabled');
  const secret = generateSecret();
  // Only while two-factor is still off: a setup landing just after an enable would hand out a secret
  // that can never be enabled.
  const [set] = await ctx.db
    .update(users)
    .set({ totpPendingSecret: ctx.secrets.encrypt(secret, userId) })
    .where(and(eq(users.id, userId), eq(users.totpEnabled, false)))
    .returning({ id: users.id });
  if (!set) throw conflict(Code.TWO_FACTOR_ALREADY_ENABLED, 'Two-factor authentication is already enabled');
  return { secret, otpauthUrl: generateURI({ issuer: TOTP_ISSUER, label: user.email, secret, period: TOTP_PERIOD_SECONDS }) };
}

const newRecoveryCode = () => {
  const raw = randomBytes(8).toString('hex');
  return `${raw.slice(0, 8)}-${raw.slice(8)}`;
};
const normaliseRecovery = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[^0-9a-f]/g, '');

/**
 * Confirms enrolment with a code from the pending secret, turns two-factor on and returns the
 * recovery codes: shown this once, stored only as SHA-256 hashes, each usable once.
 */
export async function enableTwoFactor(ctx: Ctx, userId: string, code: string): Promise<{ recoveryCodes: string[] }> {
  const user = await loadTotpUser(ctx, userId);
  if (user.role !== 'admin') throw forbidden('Two-factor authentication is for admins', Code.TWO_FACTOR_ADMIN_ONLY);
  if (user.totpEnabled) throw conflict(Code.TWO_FACTOR_ALREADY_ENABLED, 'Two-factor authentication is already enabled');
  if (!user.totpPendingSecret) throw unprocessable(Code.TWO_FACTOR_NOT_SET_UP, 'Call POST /auth/2fa/setup first');
  const secret = ctx.secrets.decrypt(user.totpPendingSecret, userId);
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await ctx.db.transaction(async (tx) => {
    // The code's time step is spent with the enable, in one transaction: an enable refused below (its
    // setup replaced meanwhile) leaves the step unspent for a code of the new secret.
    if (!(await consumeTotp(ctx, tx, user, secret, code))) {
      // The step was spent meanwhile by an enable with the same code that won: say what happened.
      const [now] = await tx.select({ totpEnabled: users.totpEnabled }).from(users).where(eq(users.id, userId));
      if (now?.totpEnabled) throw conflict(Code.TWO_FACTOR_ALREADY_ENABLED, 'Two-factor authentication was enabled concurrently');
      throw invalidCode();
    }
    const [done] = await tx
      .update(users)
      .set({ totpSecret: user.totpPendingSecret, totpPendingSecret: null, totpEnabled: true, updatedAt: ctx.clock.now() })
      .where(and(eq(users.id, userId), eq(users.totpEnabled, false), eq(users.totpPendingSecret, user.totpPendingSecret as string)))
      .returning({ id: users.id });
    if (!done) {
      // Either another enable won, or a setup racing this one replaced the secret the code was for.
      const [now] = await tx.select({ totpEnabled: users.totpEnabled }).from(users).where(eq(users.id, userId));
      if (now?.totpEnabled) throw conflict(Code.TWO_FACTOR_ALREADY_ENABLED, 'Two-factor authentication was enabled concurrently');
      throw unprocessable(Code.TWO_FACTOR_NOT_SET_UP, 'The setup was replaced meanwhile: enable with a code of the new secret');
    }
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await tx.insert(recoveryCodes).values(codes.map((c) => ({ userId, codeHash: sha256Hex(normaliseRecovery(c)) })));
    await writeAdminLog(tx, { actorId: userId, action: 'two_factor.enabled', targetType: 'User', targetId: userId });
  });
  return { recoveryCodes: codes };
}

/**
 * A current TOTP code, or else an unused recovery code (consumed by one conditional UPDATE), on `db`
 * (the caller's transaction when the consumption must roll back with it).
 */
async function checkSecondFactor(
  ctx: Ctx,
  user: Awaited<ReturnType<typeof loadTotpUser>>,
  code: string,
  db: DbOrTx = ctx.db,
): Promise<boolean> {
  if (!user.totpEnabled || !user.totpSecret) return false;
  if (/^\d{6}$/.test(code.replace(/\s/g, ''))) return consumeTotp(ctx, db, user, ctx.secrets.decrypt(user.totpSecret, user.id), code);
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: ctx.clock.now() })
    .where(
      and(eq(recoveryCodes.userId, user.id), eq(recoveryCodes.codeHash, sha256Hex(normaliseRecovery(code))), isNull(recoveryCodes.usedAt)),
    )
    .returning({ id: recoveryCodes.id });
  return used.length === 1;
}

/** One sign-in per challenge: it was used, or another sign-in since it was issued spent it. */
const challengeSpent = () =>
  unauthorized('The challenge token was already used, or a sign-in since it was issued spent it; sign in again', Code.INVALID_CHALLENGE);

/** Completes a login that answered a challenge: the challenge token plus a TOTP or recovery code. */
export async function verifyTwoFactorLogin(
  ctx: Ctx,
  signer: TokenSigner,
  params: { challengeToken: string; code: string },
  meta: ClientMeta = {},
): Promise<Session> {
  const challenge = signer.readChallenge(params.challengeToken);
  if (!challenge) throw unauthorized('The challenge token is invalid or expired; sign in again', Code.INVALID_CHALLENGE);
  const user = await loadTotpUser(ctx, challenge.userId).catch(() => null);
  if (!user?.totpEnabled) throw unauthorized('The challenge token is invalid or expired; sign in again', Code.INVALID_CHALLENGE);
  if (isSuspended(user, ctx.clock.now())) throw forbidden('This account is suspended', Code.ACCOUNT_SUSPENDED);
  // One sign-in per challenge: a sign-in completed since it was issued spends it. The challenge is
  // claimed first (a conditional UPDATE that locks the user's row) and the code consumed in the same
  // transaction, so racing uses of one challenge wait for each other: one signs in, the others are
  // refused without using up their codes, and a wrong code gives the claim back. Without this a
  // challenge token, valid 5 minutes, minted a session for every further code sent with it.
  const claimedAt = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const claimed = await tx
      .update(users)
      .set({ lastLoginAt: claimedAt })
      .where(and(eq(users.id, user.id), or(isNull(users.lastLoginAt), lte(users.lastLoginAt, challenge.issuedAt))))
      .returning({ id: users.id });
    if (claimed.length === 0) throw challengeSpent();
    if (!(await checkSecondFactor(ctx, user, params.code, tx))) {
      throw unauthorized('The code is wrong, expired or already used', Code.INVALID_TWO_FACTOR_CODE);
    }
  });
  // Another sign-in or a password change (which signs in too) between the claim and the session spends it.
  return startSession(ctx, signer, user, meta, {
    recheck: (current) => {
      if (current.lastLoginAt?.getTime() !== claimedAt.getTime()) throw challengeSpent();
    },
  });
}

/** Turns two-factor off; needs a current code (or a recovery code). Recovery codes are deleted. */
export async function disableTwoFactor(ctx: Ctx, userId: string, code: string): Promise<void> {
  const user = await loadTotpUser(ctx, userId);
  if (!user.totpEnabled) throw unprocessable(Code.TWO_FACTOR_NOT_ENABLED, 'Two-factor authentication is not enabled');
  if (!(await checkSecondFactor(ctx, user, code))) throw invalidCode();
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpEnabled: false, totpSecret: null, totpPendingSecret: null, totpLastUsedStep: null, updatedAt: ctx.clock.now() })
      .where(eq(users.id, userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await writeAdminLog(tx, { actorId: userId, action: 'two_factor.disabled', targetType: 'User', targetId: userId });
  });
}
