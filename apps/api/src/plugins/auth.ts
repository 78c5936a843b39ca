import { randomUUID } from 'node:crypto';
import { adminTwoFactorRequired, type ClientMeta, Code, forbidden, loadPrincipal, type TokenSigner, unauthorized } from '@cfaq/core';
import jwt from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ACCESS_LEVELS, type Access, ROLES_FOR } from '../lib/access.js';
import { programQueryCheck, takesProgramQuery } from '../lib/program-param.js';
import { documentRoute } from '../lib/route-docs.js';
import { refuseLooseQuery } from '../lib/strict-query.js';

/** Lifetime of a two-factor challenge token (typ '2fa'): long enough to open an authenticator app. */
export const CHALLENGE_TTL_SECONDS = 300;

/** A token's subject must be a user id; anything else (a forged or foreign token) is simply not a caller. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One row of the access table: every route with the level it declared. */
export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
}

/** Address (TRUST_PROXY honoured by Fastify) and user agent, recorded on refresh tokens. */
export const clientMeta = (request: FastifyRequest): ClientMeta => {
  const ua = request.headers['user-agent'];
  return { ip: request.ip, ...(typeof ua === 'string' ? { userAgent: ua } : {}) };
};

export interface AccessTokenClaims {
  sub: string;
  /** Token purpose: only `access` tokens authenticate requests (refresh and 2FA challenge tokens never do). */
  typ: 'access';
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: { sub: string; typ: string; [k: string]: unknown };
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Signs a short-lived access token (JWT_ACCESS_TTL_SECONDS) for a user id. */
    issueAccessToken(userId: string): string;
    /** Access and two-factor challenge tokens for the identity core functions. */
    tokens: TokenSigner;
    /** Every route registered so far with its access level (the route-table test walks it). */
    accessTable: RouteAccess[];
  }
}

/**
 * Authentication and the access rule of every route. Tokens are HS256 JWTs (algorithm pinned on both
 * sign and verify, so `alg: none` and algorithm swaps fail). The user row is read on every
 * authenticated request so role changes and suspensions apply immediately.
 */
export const authPlugin = fp(
  async (app: FastifyInstance) => {
    const { config } = app.ctx;
    if (!config.JWT_SECRET) throw new Error('JWT_SECRET is required');
    await app.register(jwt, {
      secret: config.JWT_SECRET,
      sign: { algorithm: 'HS256', expiresIn: config.JWT_ACCESS_TTL_SECONDS },
      // Every token must say when it was issued and when it expires: a token without exp is refused
      // rather than taken as never expiring (and `authenticate` refuses lifetimes longer than ours).
      verify: { algorithms: ['HS256'], requiredClaims: ['sub', 'iat', 'exp'] },
    });

    // jti: each token is its own (two sessions opened in the same second got the same bytes, so a
    // password change's fresh session could hand back the very token it replaced).
    const issueAccessToken = (userId: string) => app.jwt.sign({ sub: userId, typ: 'access', jti: randomUUID() });
    app.decorate('issueAccessToken', issueAccessToken);
    app.decorate('tokens', {
      accessToken: issueAccessToken,
      accessTtlSeconds: config.JWT_ACCESS_TTL_SECONDS,
      // `at`: when the password passed, in milliseconds, so a challenge is spent by the sign-in it completes.
      challengeToken: (userId: string, issuedAt: Date) =>
        app.jwt.sign({ sub: userId, typ: '2fa', at: issuedAt.getTime() }, { expiresIn: CHALLENGE_TTL_SECONDS }),
      readChallenge: (token: string) => {
        try {
          const claims = app.jwt.verify<{ sub?: unknown; typ?: unknown; at?: unknown }>(token);
          if (claims.typ !== '2fa' || typeof claims.sub !== 'string' || !UUID.test(claims.sub)) return null;
          if (typeof claims.at !== 'number' || !Number.isSafeInteger(claims.at)) return null;
          return { userId: claims.sub, issuedAt: new Date(claims.at) };
        } catch {
          return null;
        }
      },
    } satisfies TokenSigner);
    app.decorate('accessTable', [] as RouteAccess[]);
    app.decorateRequest('auth', null);
    const operationIds = new Set<string>();

    // A route without an access level is a bug: fail at startup, not in production traffic.
    app.addHook('onRoute', (route) => {
      const url = route.url ?? route.path ?? '';
      // The CORS preflight route (OPTIONS *, @fastify/cors) answers headers only: public, and not an
      // API route, so not in the access table.
      const preflight = route.method === 'OPTIONS' && url === '*' && !route.config?.access;
      // The docs answer no data: public.
      if (preflight || (!route.config?.access && url.startsWith('/api/docs'))) {
        route.config = { ...(route.config ?? {}), access: 'public' };
      }
      const access = route.config?.access;
      if (!access || !ACCESS_LEVELS.includes(access)) {
        throw new Error(`route ${route.method} ${url} declares no access level (config.access)`);
      }
      refuseLooseQuery(route, url, access);
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
        if (!preflight) app.accessTable.push({ method, url, access });
      }
      // The OpenAPI entry: standard problem responses, security and operationId from the access level.
      documentRoute(route, access, operationIds);
      // Staff and admin lists only: public and signed-in reads resolve their program themselves (and hide
      // archived ones), so a check here would read the program twice on the hottest routes.
      if ((access === 'staff' || access === 'admin') && takesProgramQuery(route)) {
        const own = route.preHandler;
        route.preHandler = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), programQueryCheck(app)];
      }
      // The route's own first onRequest hook, with its access level bound here rather than read from
      // request.routeOptions (an object built on every read) on every request. First, so the
      // rate limiters after it key signed-in callers by user.
      const own = route.onRequest;
      route.onRequest = [
        entryHook(app, access, url.startsWith('/api/auth/2fa/')),
        ...(own === undefined ? [] : Array.isArray(own) ? own : [own]),
      ];
    });
  },
  { name: 'auth', dependencies: ['context'] },
);

/**
 * The first hook of every route: admits the caller by the route's access level (provider routes check their
 * signature in the handler). Callback style: a public request without a token (most traffic) costs
 * no promise.
 */
function entryHook(app: FastifyInstance, access: Access, twoFactorSetup: boolean): onRequestHookHandler {
  const requireTotp = access === 'admin' && !twoFactorSetup && adminTwoFactorRequired(app.ctx.config);
  return (request, _reply, done) => {
    if (access === 'provider') return done();
    const header = request.headers.authorization;
    if (!header) return access === 'public' ? done() : done(unauthorized());
    admit(app, request, access, header, requireTotp).then(() => done(), done);
  };
}

/** Verifies the bearer token and checks the caller's role against the route's access level. */
async function admit(
  app: FastifyInstance,
  request: FastifyRequest,
  access: Exclude<Access, 'provider'>,
  header: string,
  requireTotp: boolean,
): Promise<void> {
  const principal = await authenticate(app, request, header);
  if (!principal) {
    if (access === 'public') return;
    throw unauthorized('The access token is invalid or expired', Code.INVALID_TOKEN);
  }
  if (principal.suspended && access !== 'public') throw forbidden('This account is suspended', Code.ACCOUNT_SUSPENDED);
  if (!principal.suspended) request.auth = { id: principal.id, role: principal.role, email: principal.email };
  if (access !== 'public' && !ROLES_FOR[access].includes(principal.role)) {
    throw forbidden('Your role does not allow this', Code.FORBIDDEN);
  }
  // ADMIN_2FA_REQUIRED: an admin without TOTP reaches only the two-factor setup routes among admin routes.
  if (requireTotp && !principal.totpEnabled) {
    throw forbidden(
      'Enable two-factor authentication (POST /auth/2fa/setup, then /auth/2fa/enable) to use admin routes',
      Code.ADMIN_2FA_REQUIRED,
    );
  }
}

async function authenticate(app: FastifyInstance, request: FastifyRequest, header: string) {
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return null;
  let claims: { sub?: unknown; typ?: unknown; iat?: unknown; exp?: unknown };
  try {
    claims = app.jwt.verify(match[1] as string);
  } catch {
    return null;
  }
  if (claims.typ !== 'access' || typeof claims.sub !== 'string') return null;
  // No access token this service signs lives longer than JWT_ACCESS_TTL_SECONDS (its exp is iat plus
  // exactly that, both whole seconds of one clock reading).
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return null;
  if (claims.exp - claims.iat > app.ctx.config.JWT_ACCESS_TTL_SECONDS) return null;
  // Nor one issued in the future (beyond a little clock skew): with iat a year ahead, exp - iat held and
  // the token lived a year.
  if (claims.iat > Date.now() / 1000 + 60) return null;
  if (!UUID.test(claims.sub)) return null;
  request.log.debug({ userId: claims.sub }, 'authenticated');
  return loadPrincipal(app.ctx, claims.sub);
}
