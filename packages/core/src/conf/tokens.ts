import { users } from '@cfaq/db/schema/index';
import { eq, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, unprocessable } from '../errors/index.js';
import { ConfProviderError, refreshGrant } from './client.js';

type Ctx = Pick<CoreContext, 'db' | 'config' | 'secrets' | 'clock' | 'log'>;

/** A token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 60_000;

export const confNotConnected = () => unprocessable(Code.CONF_NOT_CONNECTED, 'The meeting provider account is not connected');

/**
 * The user's provider access token, refreshed when it is about to expire (or when `rejected`, the
 * token the provider just refused, is still the stored one). Refreshes are serialized per user by a
 * row lock (`SELECT ... FOR UPDATE`): a caller that waited finds the token its predecessor stored and
 * makes no call of its own. The provider rotates refresh tokens, so the new pair is committed before
 * the new access token is handed out. A refresh the provider refuses (invalid_grant) disconnects the
 * account.
 */
export async function confAccessToken(ctx: Ctx, userId: string, rejected?: string): Promise<string> {
  const [u] = await ctx.db
    .select({ connected: users.confConnected, access: users.confAccessToken, expiresAt: users.confTokenExpiresAt })
    .from(users)
    .where(eq(users.id, userId));
  if (!u?.connected || !u.access) throw confNotConnected();
  const fresh = (expiresAt: Date | null) => !!expiresAt && expiresAt.getTime() - ctx.clock.now().getTime() > REFRESH_MARGIN_MS;
  if (!rejected && fresh(u.expiresAt)) return ctx.secrets.decrypt(u.access, userId);

  let disconnect: ConfProviderError | null = null;
  const token = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        connected: users.confConnected,
        access: users.confAccessToken,
        refresh: users.confRefreshToken,
        expiresAt: users.confTokenExpiresAt,
      })
      .from(users)
      .where(eq(users.id, userId))
      .for('update');
    if (!row?.connected || !row.access || !row.refresh) throw confNotConnected();
    const current = ctx.secrets.decrypt(row.access, userId);
    // Someone refreshed while this call waited for the lock.
    if (rejected ? current !== rejected : fresh(row.expiresAt)) return current;
    let next: Awaited<ReturnType<typeof refreshGrant>>;
    try {
      next = await refreshGrant(ctx.config, ctx.secrets.decrypt(row.refresh, userId));
    } catch (err) {
      if (err instanceof ConfProviderError && !err.transient && (err.status === 400 || err.status === 401)) {
        disconnect = err;
        return null;
      }
      throw err;
    }
    await tx
      .update(users)
      .set({
        confRefreshToken: ctx.secrets.encrypt(next.refreshToken, userId),
        confAccessToken: ctx.secrets.encrypt(next.accessToken, userId),
        confTokenExpiresAt: new Date(ctx.clock.now().getTime() + next.expiresInSeconds * 1000),
        updatedAt: sql`${users.updatedAt}`,
      })
      .where(eq(users.id, userId));
    ctx.log.info({ userId }, '[conf] provider token refreshed');
    return next.accessToken;
  });
  if (token) return token;
  await ctx.db
    .update(users)
    .set({ confConnected: false, confAccessToken: null, confRefreshToken: null, confTokenExpiresAt: null })
    .where(eq(users.id, userId));
  ctx.log.warn({ userId, err: (disconnect as ConfProviderError | null)?.message }, '[conf] refresh refused; account disconnected');
  throw unprocessable(Code.CONF_NOT_CONNECTED, 'The provider refused the refresh token; connect the account again');
}

/** Runs `fn` with the user's token; a 401 from the provider refreshes once and tries again. */
export async function withConfToken<T>(ctx: Ctx, userId: string, fn: (token: string) => Promise<T>): Promise<T> {
  const token = await confAccessToken(ctx, userId);
  try {
    return await fn(token);
  } catch (err) {
    if (!(err instanceof ConfProviderError) || err.status !== 401) throw err;
    return fn(await confAccessToken(ctx, userId, token));
  }
}
