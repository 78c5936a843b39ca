import { users } from '@cfaq/db/schema/index';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { badGateway, Code, unprocessable } from '../errors/index.js';
import { ConfClientRejectedError, ConfProviderError, isGrantRefused, refreshGrant } from './client.js';

type Ctx = Pick<CoreContext, 'db' | 'config' | 'secrets' | 'clock' | 'log'>;

/** A token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 60_000;

export const confNotConnected = () => unprocessable(Code.CONF_NOT_CONNECTED, 'The meeting provider account is not connected');

const tokensUnreadable = () =>
  unprocessable(
    Code.CONF_NOT_CONNECTED,
    'The stored provider tokens do not decrypt with the current ENCRYPTION_KEY (it was changed): connect the account again',
  );

/**
 * The columns that end a connection: tokens and the provider identity cleared, so the provider account
 * (users_conf_user_id_key covers every non-null conf_user_id) can be connected again, by anyone.
 */
export const CONF_DISCONNECTED = {
  confConnected: false,
  confUserId: null,
  confEmail: null,
  confAccessToken: null,
  confRefreshToken: null,
  confTokenExpiresAt: null,
  confRefreshLeaseUntil: null,
} as const;

/** A stored token in clear; one that no longer decrypts (ENCRYPTION_KEY changed) counts as no connection: 422 CONF_NOT_CONNECTED. */
function decryptStored(ctx: Pick<CoreContext, 'secrets'>, stored: string, userId: string): string {
  try {
    return ctx.secrets.decrypt(stored, userId);
  } catch {
    throw tokensUnreadable();
  }
}

/**
 * Whether a user is connected to the provider now: the flag, and both stored tokens decrypting with
 * this process's ENCRYPTION_KEY (a changed key makes them unreadable: connect again). The one rule for
 * every read that says "connected" (GET /conf/token, the user views, /conf/health, the callback's
 * takeover of a provider account).
 */
export function confConnectedNow(
  secrets: Pick<CoreContext['secrets'], 'decrypt'>,
  row: { id: string; confConnected: boolean; confAccessToken: string | null; confRefreshToken: string | null },
): boolean {
  if (!row.confConnected || !row.confAccessToken || !row.confRefreshToken) return false;
  try {
    secrets.decrypt(row.confAccessToken, row.id);
    secrets.decrypt(row.confRefreshToken, row.id);
    return true;
  } catch {
    return false;
  }
}

/** How long one caller may hold the refresh: above the provider call's own timeout (CONF_API_TIMEOUT_MS, 15 s). */
const REFRESH_LEASE_MS = 30_000;
/** How often a caller that did not get the lease looks for the token its holder stored. */
const LEASE_POLL_MS = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The user's provider access token, refreshed when it is about to expire (or when `rejected`, the
 * token the provider just refused, is still the stored one). Refreshes are serialized per user by a
 * lease (users.conf_refresh_lease_until), taken and released in statements of their own: no
 * transaction stays open across the provider call, which on the embedded database would hold up
 * every other request for as long as the provider takes. A caller that finds the lease taken polls
 * for the token its holder stores and makes no call of its own. The provider rotates refresh tokens,
 * so the new pair is committed before the new access token is handed out. A refresh the provider
 * refuses with `invalid_grant` disconnects the account (CONF_DISCONNECTED); a refusal of the client
 * itself (`invalid_client`, ConfClientRejectedError) is the service's configuration error and keeps the
 * tokens. Tokens that no longer decrypt (ENCRYPTION_KEY changed) are 422 CONF_NOT_CONNECTED.
 */
export async function confAccessToken(ctx: Ctx, userId: string, rejected?: string): Promise<string> {
  const fresh = (expiresAt: Date | null) => !!expiresAt && expiresAt.getTime() - ctx.clock.now().getTime() > REFRESH_MARGIN_MS;
  const read = async () => {
    const [u] = await ctx.db
      .select({ connected: users.confConnected, access: users.confAccessToken, expiresAt: users.confTokenExpiresAt })
      .from(users)
      .where(eq(users.id, userId));
    if (!u?.connected || !u.access) throw confNotConnected();
    return { access: decryptStored(ctx, u.access, userId), expiresAt: u.expiresAt };
  };
  // Current: not the token the provider refused, and (when none was refused) not about to expire.
  const usable = (t: { access: string; expiresAt: Date | null }) => (rejected ? t.access !== rejected : fresh(t.expiresAt));

  let current = await read();
  if (usable(current)) return current.access;
  const deadline = Date.now() + 2 * REFRESH_LEASE_MS;
  for (;;) {
    const [claimed] = await ctx.db
      .update(users)
      .set({ confRefreshLeaseUntil: sql`now() + ${`${REFRESH_LEASE_MS} milliseconds`}::interval`, updatedAt: sql`${users.updatedAt}` })
      .where(
        and(
          eq(users.id, userId),
          eq(users.confConnected, true),
          or(isNull(users.confRefreshLeaseUntil), lt(users.confRefreshLeaseUntil, sql`now()`)),
        ),
      )
      .returning({ lease: sql<string>`${users.confRefreshLeaseUntil}::text` });
    if (claimed) return refreshHeld(ctx, userId, claimed.lease, usable);
    await sleep(LEASE_POLL_MS);
    current = await read();
    if (usable(current)) return current.access;
    if (Date.now() > deadline) throw badGateway(Code.CONF_PROVIDER_ERROR, 'The provider token refresh did not finish; retry later');
  }
}

/**
 * The refresh itself, by the lease's holder. The lease is released on every path, only while it is
 * still this caller's (a holder that outlived it must not clear its successor's). The writes that
 * follow the provider call are compare-and-swap on the refresh token this caller sent: the new pair
 * is stored only over that token, and a refusal disconnects the account only when that token is still
 * the stored one (a refusal of a token another caller has already rotated is theirs to settle).
 */
async function refreshHeld(
  ctx: Ctx,
  userId: string,
  lease: string,
  usable: (t: { access: string; expiresAt: Date | null }) => boolean,
): Promise<string> {
  const mine = sql`${users.confRefreshLeaseUntil}::text = ${lease}`;
  const release = () =>
    ctx.db
      .update(users)
      .set({ confRefreshLeaseUntil: null, updatedAt: sql`${users.updatedAt}` })
      .where(and(eq(users.id, userId), mine));
  let next: Awaited<ReturnType<typeof refreshGrant>>;
  let sent: string | undefined;
  try {
    // The previous holder may have refreshed between this caller's read and its claim.
    const [row] = await ctx.db
      .select({ access: users.confAccessToken, refresh: users.confRefreshToken, expiresAt: users.confTokenExpiresAt })
      .from(users)
      .where(and(eq(users.id, userId), eq(users.confConnected, true)));
    if (!row?.access || !row.refresh) throw confNotConnected();
    const current = { access: decryptStored(ctx, row.access, userId), expiresAt: row.expiresAt };
    if (usable(current)) {
      await release();
      return current.access;
    }
    sent = row.refresh;
    next = await refreshGrant(ctx.config, decryptStored(ctx, row.refresh, userId));
  } catch (err) {
    // Only the grant refused (RFC 6749 §5.2 invalid_grant: revoked, expired, spent) ends the connection.
    if (err instanceof ConfProviderError && isGrantRefused(err) && sent !== undefined) {
      const [gone] = await ctx.db
        .update(users)
        .set(CONF_DISCONNECTED)
        .where(and(eq(users.id, userId), eq(users.confRefreshToken, sent)))
        .returning({ id: users.id });
      if (gone) {
        ctx.log.warn({ userId, err: err.message }, '[conf] refresh refused (invalid_grant); account disconnected');
        throw unprocessable(Code.CONF_NOT_CONNECTED, 'The provider refused the refresh token; connect the account again');
      }
    } else if (err instanceof ConfClientRejectedError) {
      // The service's client credentials, not the user's grant: every user's tokens stay as they are.
      ctx.log.error({ userId, err: err.message }, '[conf] token refresh refused the client credentials; tokens kept');
    }
    await release();
    throw err;
  }
  const [stored] = await ctx.db
    .update(users)
    .set({
      confRefreshToken: ctx.secrets.encrypt(next.refreshToken, userId),
      confAccessToken: ctx.secrets.encrypt(next.accessToken, userId),
      confTokenExpiresAt: new Date(ctx.clock.now().getTime() + next.expiresInSeconds * 1000),
      confRefreshLeaseUntil: null,
      updatedAt: sql`${users.updatedAt}`,
    })
    .where(and(eq(users.id, userId), eq(users.confConnected, true), eq(users.confRefreshToken, sent as string)))
    .returning({ id: users.id });
  if (!stored) {
    // Disconnected meanwhile, or another caller stored a pair first: nothing is written over theirs.
    await release();
    ctx.log.warn({ userId }, '[conf] refreshed pair not stored: the account changed meanwhile');
  } else ctx.log.info({ userId }, '[conf] provider token refreshed');
  return next.accessToken;
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
