import { confOauthStates, users } from '@cfaq/db/schema/index';
import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { hmacSha256Hex, randomToken, safeEqual } from '../crypto/tokens.js';
import { badGateway, badRequest, Code, conflict, forbidden, invalidField, notFound, unauthorized } from '../errors/index.js';
import { adminTwoFactorRequired, loadPrincipal } from '../identity/principal.js';
import { activeAdmins } from '../identity/users.js';
import { isUniqueViolation } from '../shared/db.js';
import {
  ConfClientRejectedError,
  confAuthorizeUrl,
  confRedirectUri,
  exchangeCode,
  fetchMe,
  providerProblem,
  requireConfClient,
} from './client.js';
import type { ConfConnection, ConfConnectStart } from './shape.js';
import { CONF_DISCONNECTED, confConnectedNow } from './tokens.js';

type Ctx = Pick<CoreContext, 'db' | 'config' | 'secrets' | 'clock' | 'log'>;

/** The spec's OAuth state lifetime. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

const stateMac = (ctx: Ctx, userId: string, nonce: string) =>
  hmacSha256Hex(`conf-oauth-state:${ctx.config.JWT_SECRET ?? ctx.config.ENCRYPTION_KEY}`, `${userId}.${nonce}`);

/**
 * Starts the OAuth flow: a state of a random nonce and an HMAC binding it to the user, stored (10
 * minutes, single use) with the redirect_uri sent, so the callback can check expiry and reuse and send
 * the same redirect_uri in the code exchange.
 */
export async function startConfConnect(ctx: Ctx, userId: string): Promise<ConfConnectStart> {
  const { clientId } = requireConfClient(ctx.config);
  const nonce = randomToken(18);
  const expiresAt = new Date(ctx.clock.now().getTime() + OAUTH_STATE_TTL_MS);
  const redirectUri = confRedirectUri(ctx.config);
  await ctx.db.insert(confOauthStates).values({ userId, nonce, expiresAt, redirectUri });
  const state = `${nonce}.${stateMac(ctx, userId, nonce)}`;
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, state });
  return { authorizeUrl: `${confAuthorizeUrl(ctx.config)}?${q}`, state, expiresAt };
}

const badState = (why: string) =>
  badRequest(Code.INVALID_OAUTH_STATE, `OAuth state rejected: ${why}`, [{ path: 'query.state', message: why }]);

/**
 * The user's connection: stored tokens that no longer decrypt (ENCRYPTION_KEY changed) count as not
 * connected (confConnectedNow), as confAccessToken then refuses them.
 */
export async function confConnection(ctx: Pick<CoreContext, 'db' | 'secrets'>, userId: string): Promise<ConfConnection> {
  const [u] = await ctx.db
    .select({
      confConnected: users.confConnected,
      confUserId: users.confUserId,
      confEmail: users.confEmail,
      connectedAt: users.confConnectedAt,
      expiresAt: users.confTokenExpiresAt,
      confAccessToken: users.confAccessToken,
      confRefreshToken: users.confRefreshToken,
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!u) throw notFound('User', Code.USER_NOT_FOUND);
  const connected = confConnectedNow(ctx.secrets, { id: userId, ...u });
  return {
    connected,
    confConnected: connected,
    confUserId: connected ? u.confUserId : null,
    confEmail: connected ? u.confEmail : null,
    confConnectedAt: connected ? (u.connectedAt ?? null) : null,
    tokenExpiresAt: connected ? (u.expiresAt ?? null) : null,
  };
}

/**
 * Who called the callback. The provider redirects the browser there, and a browser navigation carries
 * no bearer token: the state identifies the user. A bearer token that was sent still counts:
 * - `anonymous`: no Authorization header (the provider's redirect);
 * - `{ id }`: a token that identifies a user (the SPA calling with its session; CONF_REDIRECT_URI);
 * - `unrecognised`: a header that identifies no active user (invalid, expired, a suspended account).
 */
export type ConfCallbackCaller = { id: string } | 'anonymous' | 'unrecognised';

/** The callback's query: `code` on success, `error` (RFC 6749 §4.1.2.1) when the provider or the user declined. */
export interface ConfCallbackInput {
  state: string;
  code?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/** The provider's error redirect as a problem: the state it carried is spent, the flow is over. */
function authorizationError(error: string, description: string | undefined) {
  const said = description ? `: ${description}` : '';
  return badRequest(
    Code.OAUTH_AUTHORIZATION_ERROR,
    error === 'access_denied'
      ? `The connection was declined at the meeting provider (access_denied${said}); start it again to connect`
      : `The meeting provider returned ${error}${said} instead of an authorization code; start the connection again`,
    [{ path: 'query.error', message: error }],
  );
}

/**
 * The callback. The state is the credential: its HMAC must verify, and the stored row (written by
 * `startConfConnect` for the admin who started the flow) names the user, who must still be an active
 * admin (role, suspension and ADMIN_2FA_REQUIRED read again now). A bearer token, when sent, must be
 * that user's (a foreign or unrecognised one is refused before the state is consumed, so the owner's
 * state stays usable). The state is consumed by one conditional UPDATE while unexpired and unused, so
 * two callbacks with one state cannot both pass. An `error` from the provider (the user declined:
 * access_denied) then ends the flow as 400 OAUTH_AUTHORIZATION_ERROR. Otherwise the code is exchanged
 * and both tokens are stored AES-256-GCM encrypted with the user id as additional data, by an UPDATE
 * that again requires an active admin (a demotion or suspension during the provider call stores
 * nothing). A provider account still named by a row that is not connected (its connection ended, or its
 * tokens no longer decrypt) is taken over; one connected to another user is 409 CONF_ACCOUNT_IN_USE.
 * The provider refusing this service's client credentials is 502 CONF_CLIENT_REJECTED, not the code.
 */
export async function completeConfConnect(ctx: Ctx, caller: ConfCallbackCaller, input: ConfCallbackInput): Promise<ConfConnection> {
  if (input.error === undefined && input.code === undefined) {
    throw invalidField('query.code', 'is required (or error, when the provider declined)');
  }
  const [nonce, mac, extra] = input.state.split('.');
  if (!nonce || !mac || extra !== undefined) throw badState('malformed');
  requireConfClient(ctx.config);
  const [row] = await ctx.db.select().from(confOauthStates).where(eq(confOauthStates.nonce, nonce));
  if (!row || !safeEqual(mac, stateMac(ctx, row.userId, nonce))) throw badState('tampered or unknown');
  if (caller === 'unrecognised') {
    throw unauthorized(
      'The bearer token does not identify an active user: send none, or one of the user who started the connection',
      Code.INVALID_TOKEN,
    );
  }
  if (caller !== 'anonymous' && row.userId !== caller.id) throw badState('issued to another user');
  const userId = row.userId;
  await requireActiveAdmin(ctx, userId);
  const now = ctx.clock.now();
  const [consumed] = await ctx.db
    .update(confOauthStates)
    .set({ usedAt: now })
    .where(and(eq(confOauthStates.id, row.id), isNull(confOauthStates.usedAt), gt(confOauthStates.expiresAt, now)))
    .returning({ id: confOauthStates.id });
  // Not consumed: used (maybe by a callback racing this one since the row was read), else expired.
  if (!consumed) throw badState(row.usedAt || row.expiresAt > now ? 'already used' : 'expired');
  if (input.error !== undefined) {
    ctx.log.info({ userId, error: input.error }, '[conf] the provider returned an error to the callback');
    throw authorizationError(input.error, input.error_description);
  }

  let tokens: Awaited<ReturnType<typeof exchangeCode>>;
  let me: Awaited<ReturnType<typeof fetchMe>>;
  try {
    // The redirect_uri of the authorization request, whichever process started it (RFC 6749 4.1.3).
    tokens = await exchangeCode(ctx.config, input.code as string, row.redirectUri ?? confRedirectUri(ctx.config));
    me = await fetchMe(ctx.config, tokens.accessToken);
  } catch (err) {
    // This service's client credentials refused: a configuration problem for the operator (502
    // CONF_CLIENT_REJECTED, logged), not a code the user brought.
    if (err instanceof ConfClientRejectedError) {
      ctx.log.error({ userId, err: err.message }, '[conf] code exchange refused the client credentials');
      throw providerProblem(err);
    }
    const e = err as { status?: number; message: string };
    if (e.status === 400 || e.status === 401) throw badRequest(Code.OAUTH_CODE_REJECTED, `The provider refused the code: ${e.message}`);
    throw badGateway(Code.CONF_PROVIDER_ERROR, `The meeting provider failed: ${e.message}`);
  }
  try {
    const stored = await ctx.db.transaction(async (tx) => {
      // A row still naming this provider account that is not connected any more (or whose tokens no
      // longer decrypt) lets go of it; a connected one keeps it, and the update below is then 409.
      const holders = await tx
        .select({
          id: users.id,
          confConnected: users.confConnected,
          confAccessToken: users.confAccessToken,
          confRefreshToken: users.confRefreshToken,
        })
        .from(users)
        .where(and(eq(users.confUserId, me.id), ne(users.id, userId)))
        .for('update');
      for (const h of holders) {
        if (confConnectedNow(ctx.secrets, h)) continue;
        await tx
          .update(users)
          .set({ ...CONF_DISCONNECTED, updatedAt: sql`${users.updatedAt}` })
          .where(eq(users.id, h.id));
        ctx.log.info({ userId, previousUserId: h.id, confUserId: me.id }, '[conf] provider account taken over from a row not connected');
      }
      const [updated] = await tx
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
        .where(and(eq(users.id, userId), activeAdmin(ctx, now)))
        .returning({ id: users.id });
      return updated;
    });
    if (!stored) throw notAdminAnyMore();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(Code.CONF_ACCOUNT_IN_USE, 'This provider account is connected to another user');
    throw err;
  }
  ctx.log.info({ userId, confUserId: me.id }, '[conf] account connected');
  return confConnection(ctx, userId);
}

const notAdminAnyMore = () => forbidden('The user who started this connection is no longer an admin', Code.FORBIDDEN);

/** The user who started the flow, as the admin routes would admit them now (auth plugin's rule). */
async function requireActiveAdmin(ctx: Ctx, userId: string): Promise<void> {
  const principal = await loadPrincipal(ctx, userId);
  if (!principal) throw badState('tampered or unknown');
  if (principal.suspended) throw forbidden('The account that started this connection is suspended', Code.ACCOUNT_SUSPENDED);
  if (principal.role !== 'admin') throw notAdminAnyMore();
  if (adminTwoFactorRequired(ctx.config) && !principal.totpEnabled) {
    throw forbidden('The admin who started this connection has no two-factor authentication enabled', Code.ADMIN_2FA_REQUIRED);
  }
}

/**
 * The same rule as a condition on the users row: for the write that follows the provider call, and for
 * every webhook event (ingest.ts), since a connection made as an admin outlives a demotion or suspension.
 */
export function activeAdmin(ctx: Pick<CoreContext, 'config'>, now: Date) {
  return and(activeAdmins(now), adminTwoFactorRequired(ctx.config) ? eq(users.totpEnabled, true) : undefined);
}
