import { confOauthStates, users } from '@cfaq/db/schema/index';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { hmacSha256Hex, randomToken, safeEqual } from '../crypto/tokens.js';
import { badGateway, badRequest, Code, conflict, notFound } from '../errors/index.js';
import { isUniqueViolation } from '../shared/db.js';
import { confAuthorizeUrl, confRedirectUri, exchangeCode, fetchMe, requireConfClient } from './client.js';
import type { ConfConnection, ConfConnectStart } from './shape.js';

type Ctx = Pick<CoreContext, 'db' | 'config' | 'secrets' | 'clock' | 'log'>;

/** The spec's OAuth state lifetime. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

const stateMac = (ctx: Ctx, userId: string, nonce: string) =>
  hmacSha256Hex(`conf-oauth-state:${ctx.config.JWT_SECRET ?? ctx.config.ENCRYPTION_KEY}`, `${userId}.${nonce}`);

/**
 * Starts the OAuth flow: a state of a random nonce and an HMAC binding it to the user, stored (10
 * minutes, single use) so the callback can check expiry and reuse.
 */
export async function startConfConnect(ctx: Ctx, userId: string): Promise<ConfConnectStart> {
  const { clientId } = requireConfClient(ctx.config);
  const nonce = randomToken(18);
  const expiresAt = new Date(ctx.clock.now().getTime() + OAUTH_STATE_TTL_MS);
  await ctx.db.insert(confOauthStates).values({ userId, nonce, expiresAt });
  const state = `${nonce}.${stateMac(ctx, userId, nonce)}`;
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: confRedirectUri(ctx.config), state });
  return { authorizeUrl: `${confAuthorizeUrl(ctx.config)}?${q}`, state, expiresAt };
}

const badState = (why: string) =>
  badRequest(Code.INVALID_OAUTH_STATE, `OAuth state rejected: ${why}`, [{ path: 'query.state', message: why }]);

export async function confConnection(ctx: Pick<CoreContext, 'db'>, userId: string): Promise<ConfConnection> {
  const [u] = await ctx.db
    .select({
      connected: users.confConnected,
      confUserId: users.confUserId,
      confEmail: users.confEmail,
      connectedAt: users.confConnectedAt,
      expiresAt: users.confTokenExpiresAt,
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!u) throw notFound('User', Code.USER_NOT_FOUND);
  return {
    connected: u.connected,
    confConnected: u.connected,
    confUserId: u.connected ? u.confUserId : null,
    confEmail: u.connected ? u.confEmail : null,
    confConnectedAt: u.connected ? (u.connectedAt ?? null) : null,
    tokenExpiresAt: u.connected ? (u.expiresAt ?? null) : null,
  };
}

/**
 * The callback: the state must carry a valid HMAC, belong to the caller, be unexpired and unused
 * (consumed by one conditional UPDATE, so two callbacks with one state cannot both pass); then the
 * code is exchanged and both tokens are stored AES-256-GCM encrypted with the user id as additional data.
 */
export async function completeConfConnect(ctx: Ctx, userId: string, input: { code: string; state: string }): Promise<ConfConnection> {
  const [nonce, mac, extra] = input.state.split('.');
  if (!nonce || !mac || extra !== undefined) throw badState('malformed');
  requireConfClient(ctx.config);
  const [row] = await ctx.db.select().from(confOauthStates).where(eq(confOauthStates.nonce, nonce));
  if (!row || !safeEqual(mac, stateMac(ctx, row.userId, nonce))) throw badState('tampered or unknown');
  if (row.userId !== userId) throw badState('issued to another user');
  const now = ctx.clock.now();
  const [consumed] = await ctx.db
    .update(confOauthStates)
    .set({ usedAt: now })
    .where(and(eq(confOauthStates.id, row.id), isNull(confOauthStates.usedAt), gt(confOauthStates.expiresAt, now)))
    .returning({ id: confOauthStates.id });
  if (!consumed) throw badState(row.usedAt ? 'already used' : 'expired');

  let tokens: Awaited<ReturnType<typeof exchangeCode>>;
  let me: Awaited<ReturnType<typeof fetchMe>>;
  try {
    tokens = await exchangeCode(ctx.config, input.code, confRedirectUri(ctx.config));
    me = await fetchMe(ctx.config, tokens.accessToken);
  } catch (err) {
    const e = err as { status?: number; message: string; transient?: boolean };
    if (e.status === 400 || e.status === 401) throw badRequest(Code.OAUTH_CODE_REJECTED, `The provider refused the code: ${e.message}`);
    throw badGateway(Code.CONF_PROVIDER_ERROR, `The meeting provider failed: ${e.message}`);
  }
  try {
    await ctx.db
      .update(users)
      .set({
        confConnected: true,
        confUserId: me.id,
        confEmail: me.email,
        confRefreshToken: ctx.secrets.encrypt(tokens.refreshToken, userId),
        confAccessToken: ctx.secrets.encrypt(tokens.accessToken, userId),
        confTokenExpiresAt: new Date(now.getTime() + tokens.expiresInSeconds * 1000),
        confConnectedAt: now,
        updatedAt: sql`now()`,
      })
      .where(eq(users.id, userId));
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(Code.CONF_ACCOUNT_IN_USE, 'This provider account is connected to another user');
    throw err;
  }
  ctx.log.info({ userId, confUserId: me.id }, '[conf] account connected');
  return confConnection(ctx, userId);
}
