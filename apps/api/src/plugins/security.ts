import cors from '@fastify/cors';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

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

/** Paths whose answers carry credentials or personal data: never stored by a browser or a proxy. */
const NO_STORE_PREFIXES = ['/api/auth/', '/api/admin/users'];

const noStore: onRequestHookHandler = (_request, reply, done) => {
  reply.header('cache-control', 'no-store');
  reply.header('pragma', 'no-cache');
  done();
};

/**
 * The HTTP surface a browser app and an operator need: CORS from CORS_ORIGINS, helmet's security
 * headers on every answer, and `Cache-Control: no-store` on every auth answer (set before the
 * handler runs, so errors carry it too).
 *
 * Helmet's middleware is built once, here: `@fastify/helmet` (used before) builds it again on every
 * request (`helmet(options)(req, res)` in its onRequest hook, parsing the CSP directives each time),
 * about 25 us a request on every route, against under 1 us for the prebuilt one.
 */
export const securityPlugin = fp(
  async (app: FastifyInstance) => {
    const { origin, credentials } = corsOptions(app.ctx.config.CORS_ORIGINS);
    await app.register(cors, {
      origin,
      credentials,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'x-request-id'],
      exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'],
      maxAge: 600,
    });
    const securityHeaders = helmet({
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
    app.addHook('onRequest', (request, reply, done) => {
      securityHeaders(request.raw, reply.raw, (err?: unknown) => done(err instanceof Error ? err : undefined));
    });
    app.addHook('onRoute', (route) => {
      const url = route.url ?? route.path ?? '';
      if (!NO_STORE_PREFIXES.some((p) => url.startsWith(p))) return;
      const own = route.onRequest;
      route.onRequest = [noStore, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
    });
  },
  { name: 'security', dependencies: ['context'] },
);
