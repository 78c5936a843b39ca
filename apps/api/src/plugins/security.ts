import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/** CORS_ORIGINS as @fastify/cors options: none by default, a list with credentials, or `*` without. */
export function corsOptions(setting: string): { origin: false | string | string[]; credentials: boolean } {
  const origins = setting
    .split(',')
    .map((s) => s.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  if (origins.length === 0) return { origin: false, credentials: false };
  // A wildcard never goes with credentials (browsers refuse it, and it would hand every site the session).
  if (origins.includes('*')) return { origin: '*', credentials: false };
  return { origin: origins, credentials: true };
}

/**
 * Paths whose answers must never be stored by a browser or a proxy: tokens and personal data (auth), everything staff-only under
 * /admin (user records, the AI key reveal, audit logs), and the meeting provider's connection.
 */
const NO_STORE_PREFIXES = ['/api/auth/', '/api/admin/', '/api/conf/auth', '/api/conf/callback', '/api/conf/token'];

/**
 * What every answer carries: the security headers, and `Cache-Control: no-store` on the no-store paths
 * (by the request's path, so an unknown route there and an error before routing carry it too) and on
 * every answer to a request that carries credentials: signed-in reads (notifications, moderation logs,
 * a staff member's view of a FAQ with its drafts) are the caller's own and are never to be stored.
 */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply, securityHeaders: Readonly<Record<string, string>>) {
  reply.headers(securityHeaders);
  if (request.headers.authorization !== undefined || isNoStorePath(routedPath(request)))
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

function isNoStorePath(path: string): boolean {
  return NO_STORE_PREFIXES.some((p) => path.startsWith(p));
}

/**
 * The path the router matched (`/api/%61uth/login` runs `/api/auth/login`: the raw URL would miss the
 * prefix), else the request's path decoded (an unknown route), else as sent (a malformed escape).
 */
function routedPath(request: FastifyRequest): string {
  const routed = request.routeOptions?.url;
  // CORS's `OPTIONS *` route matches any path: the path asked for decides.
  if (routed && !routed.includes('*')) return routed;
  const raw = request.url.split('?')[0] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Helmet's headers for these options, read once off its middleware: they depend on the options only
 * (no CSP nonces here), so every answer carries the same list. Set through fastify's own header store,
 * they go out with the status line in one `writeHead`; helmet's middleware on each request called
 * `res.setHeader` a dozen times, each validated, and moved Node off its fast path for fastify's
 * headers too (about 12 % of the API's CPU on a cache hit of POST /search, bench/search).
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously');
  return Object.freeze(headers);
}

/**
 * The HTTP surface a browser app and an operator need: CORS from CORS_ORIGINS, helmet's security
 * headers on every answer, and `Cache-Control: no-store` on every auth answer (set before the
 * handler runs, so errors carry it too).
 *
 * Helmet's headers are computed once, here (helmetHeaders): `@fastify/helmet` (used before) built its
 * middleware again on every request (`helmet(options)(req, res)` in its onRequest hook, parsing the
 * CSP directives each time), about 25 us a request on every route.
 */
/** The security headers of every answer, computed once per app (also sent by the HTTP parser's error answers). */
export function apiSecurityHeaders(corsSetting: string): Readonly<Record<string, string>> {
  const { origin } = corsOptions(corsSetting);
  return helmetHeaders({
    // The API answers JSON; the one HTML page is the docs UI, whose assets are served from here.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
      },
    },
    crossOriginResourcePolicy: { policy: origin ? 'cross-origin' : 'same-origin' },
  });
}

const CORS_HEADERS = [
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
];

export const securityPlugin = fp(
  async (app: FastifyInstance) => {
    const { origin, credentials } = corsOptions(app.ctx.config.CORS_ORIGINS);
    const securityHeaders = apiSecurityHeaders(app.ctx.config.CORS_ORIGINS);
    // Before CORS's own hook, which answers preflights by itself: they carry these headers too.
    // The request id goes out here too: every answer carries it, the docs' included (they have no access hook).
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      applySecurityHeaders(request, reply, securityHeaders);
      done();
    });
    await app.register(cors, {
      // No origin allowed is an empty list rather than `false`: with `false` the plugin answers every OPTIONS
      // request 404, a plain OPTIONS (no Origin) included; with a list that matches nothing, a preflight
      // is answered without Access-Control-Allow-Origin (it grants nothing) and a plain OPTIONS with 204.
      origin: origin === false ? [] : origin,
      credentials,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      // last-event-id: a page on another origin resumes the notification stream with fetch (EventSource cannot send a bearer token).
      allowedHeaders: ['authorization', 'content-type', 'x-request-id', 'last-event-id'],
      // The names the rate limiters send (@fastify/rate-limit's x-ratelimit-*), so a page on another origin can read them.
      exposedHeaders: ['x-request-id', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      maxAge: 600,
      // An OPTIONS request without Origin is no CORS preflight but a plain OPTIONS: 204 (it was a text/plain 400).
      strictPreflight: false,
    });
    // The plugin sends credentials, methods and exposed headers even to an origin it did not allow
    // (no Access-Control-Allow-Origin): they grant nothing, but an origin not on the list gets no CORS
    // header at all. Preflights are answered with reply.send too, so this runs for them as well.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (!reply.hasHeader('access-control-allow-origin')) for (const h of CORS_HEADERS) reply.removeHeader(h);
      done(null, payload);
    });
  },
  { name: 'security', dependencies: ['context'] },
);
