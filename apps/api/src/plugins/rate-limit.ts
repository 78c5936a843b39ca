import { type Config, SharedCounters } from '@cfaq/core';
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  onResponseAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import { limiterStore } from './limiter-store.js';

/** A limiter whose counters live in PostgreSQL, shared by every API process (see limiter-store.ts). */
export type SharedLimit = RateLimitOptions & { shared: string };

/** Failed sign-ins per window: per account and address, and a looser ceiling per address. */
export interface LoginLimit {
  accountMax: number;
  addressMax: number;
  timeWindow: number;
}

/**
 * The spec's named limiters. Each route that uses one gets its own counters, unless it names a
 * `groupId`: the spellings or methods of one function share one budget. All of them count in
 * PostgreSQL (DESIGN: rate-limit counters hold across API processes); only the per-request burst
 * limiter every route has counts per process (a database write on every request, cache hits included,
 * would cost more than the flood it stops).
 */
export interface Limits {
  login: LoginLimit;
  register: SharedLimit;
  password: SharedLimit;
  twoFactor: SharedLimit;
  identity: SharedLimit;
  adminWrite: SharedLimit;
  /** The spec's 30 a minute: shared, so it holds however many API processes serve it. */
  searchSuggest: SharedLimit;
  logIngest: SharedLimit;
  /** FAQ suggestions per user per hour (shared: an hourly per-user limit must hold across processes). */
  suggest: SharedLimit;
  /**
   * FAQ flags and reports per user per hour (shared): reports count apart from flags; the flag's two
   * methods (POST or PATCH /faq/:id/flag, one function) count together, under the `faq-flag` group.
   */
  flag: SharedLimit;
}

declare module 'fastify' {
  interface FastifyInstance {
    limits: Limits;
    /**
     * The identity-creation limiter as an onRequest hook, one counter shared by every route that
     * creates an identity (registration, provider connections), on top of the route's own limiter.
     */
    identityLimit: onRequestAsyncHookHandler;
    /**
     * The login limiter as route hooks: the preHandler counts the attempt per account and address
     * and per address (429 over either), the onResponse hook takes it back unless it failed, so only
     * failed sign-ins count.
     */
    loginLimit: AttemptHooks;
    /**
     * The two-factor verify limiter (RATE_LIMIT_TWO_FACTOR_MAX per window, per account named by a valid
     * challenge, else per address), counting failed codes only: an admin's own sign-ins never lock them out.
     */
    twoFactorVerifyLimit: (keyOf: (request: FastifyRequest) => string) => AttemptHooks;
  }
}

/** Signed-in callers are counted per user; anonymous ones per client address (trusted proxies honoured). */
export const rateLimitKey = (request: FastifyRequest) => (request.auth ? `user:${request.auth.id}` : `ip:${request.ip}`);
const byAddress = (request: FastifyRequest) => `ip:${request.ip}`;

export function buildLimits(c: Config): Limits {
  const window = c.RATE_LIMIT_WINDOW_SECONDS * 1000;
  return {
    login: { accountMax: c.RATE_LIMIT_LOGIN_MAX, addressMax: c.RATE_LIMIT_LOGIN_ADDRESS_MAX, timeWindow: window },
    register: { shared: 'register', max: c.RATE_LIMIT_REGISTER_MAX, timeWindow: window, keyGenerator: byAddress },
    password: { shared: 'password', max: c.RATE_LIMIT_PASSWORD_MAX, timeWindow: window },
    twoFactor: { shared: 'two-factor', max: c.RATE_LIMIT_TWO_FACTOR_MAX, timeWindow: window },
    identity: { shared: 'identity', max: c.RATE_LIMIT_IDENTITY_MAX, timeWindow: window },
    adminWrite: { shared: 'admin-write', max: c.RATE_LIMIT_ADMIN_WRITE_MAX, timeWindow: 60_000 },
    // A database blip lets these two through rather than failing a typeahead or a client's error report.
    searchSuggest: { shared: 'search-suggest', max: c.SEARCH_SUGGEST_RATE_LIMIT, timeWindow: 60_000, skipOnError: true },
    logIngest: { shared: 'log-ingest', max: c.LOG_INGEST_RATE_LIMIT, timeWindow: 60_000, keyGenerator: byAddress, skipOnError: true },
    suggest: { shared: 'suggest', max: c.RATE_LIMIT_SUGGEST_MAX, timeWindow: 3_600_000 },
    flag: { shared: 'flag', max: c.RATE_LIMIT_FLAG_MAX, timeWindow: 3_600_000 },
  };
}

function tooMany(max: number, retryAfterSeconds: number) {
  const err = new Error(`Rate limit exceeded: ${max} requests per window; retry in ${retryAfterSeconds} s`) as Error & {
    statusCode: number;
  };
  err.statusCode = 429;
  return err;
}

/**
 * The user-burst limiter covers every route; named limiters replace it on the routes that declare
 * one; admin writes without their own limiter get the admin-write limiter. 429 answers carry
 * `retry-after` and go through the problem handler.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance) => {
    const limits = buildLimits(app.ctx.config);
    app.decorate('limits', limits);
    // Runs before the rate-limit plugin's own onRoute hook, which reads config.rateLimit.
    app.addHook('onRoute', (route) => {
      const method = Array.isArray(route.method) ? route.method : [route.method];
      const isWrite = method.some((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m));
      if (route.config?.access === 'admin' && isWrite && route.config.rateLimit === undefined) {
        route.config = { ...route.config, rateLimit: limits.adminWrite };
      }
    });
    const counters = new SharedCounters(app.ctx.pool);
    await app.register(rateLimit, {
      global: true,
      store: limiterStore(counters),
      max: app.ctx.config.RATE_LIMIT_USER_BURST_MAX,
      timeWindow: 60_000,
      keyGenerator: rateLimitKey,
      errorResponseBuilder: (_request, context) => tooMany(context.max, Math.ceil(context.ttl / 1000)),
    });
    // createRateLimit, not rateLimit: a rateLimit() hook marks the request as limited and the route's
    // own limiter would then be skipped. This one counts without marking, so both apply.
    const identity = app.createRateLimit(limits.identity);
    app.decorate('identityLimit', async (request, reply) => {
      const result = await identity(request);
      if (result.isAllowed || !result.isExceeded) return;
      throw limited(reply, result.max, result.ttlInSeconds);
    });
    app.decorate('loginLimit', loginLimitHooks(app, counters, limits.login));
    app.decorate('twoFactorVerifyLimit', (keyOf: (request: FastifyRequest) => string) =>
      failedAttemptHooks(app, counters, {
        name: 'two-factor-verify',
        timeWindow: limits.twoFactor.timeWindow as number,
        countersOf: (request) => [{ key: `two-factor-verify|${keyOf(request)}`, max: limits.twoFactor.max as number }],
      }),
    );
  },
  { name: 'rate-limit', dependencies: ['context', 'auth'] },
);

/**
 * A 429 of a limiter of our own, with the headers of the limit that refused it (the burst limiter's,
 * set earlier on every request, said "remaining 290, resets in 5 s" beside `retry-after: 899`).
 */
function limited(reply: FastifyReply, max: number, retryAfter: number) {
  reply.headers({ 'retry-after': retryAfter, 'x-ratelimit-limit': max, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': retryAfter });
  return tooMany(max, retryAfter);
}

/** The login limiter: failed sign-ins per account and address, and a looser ceiling per address. */
function loginLimitHooks(app: FastifyInstance, counters: SharedCounters, limit: LoginLimit): AttemptHooks {
  return failedAttemptHooks(app, counters, {
    name: 'login',
    timeWindow: limit.timeWindow,
    countersOf: (request) => {
      const body = request.body as { email?: unknown } | undefined;
      const email = typeof body?.email === 'string' ? body.email.trim().toLowerCase() : '';
      return [
        { key: `login|account|${email}|${request.ip}`, max: limit.accountMax },
        { key: `login|address|${request.ip}`, max: limit.addressMax },
      ];
    },
  });
}

const attemptKeys = Symbol('failedAttemptKeys');
type CountedRequest = FastifyRequest & { [attemptKeys]?: { key: string; window: string | undefined }[] };
export type AttemptHooks = { preHandler: preHandlerAsyncHookHandler; onResponse: onResponseAsyncHookHandler };

/**
 * A limiter of failed attempts in PostgreSQL (the login, the two-factor verify): the preHandler counts
 * the attempt under each of `countersOf(request)` (after the body is parsed, before the credentials are
 * checked, so parallel guesses cannot slip past), 429 over any counter's max; the onResponse hook takes
 * the attempt back unless it was a wrong credential or code (400, 401), so only failures count: not a
 * success, not an attempt this limiter refused itself (its 429: the credentials were never checked, and
 * counted, a burst of correct sign-ins from one office locked the address for the whole window), not a
 * right password of a suspended account (403).
 */
function failedAttemptHooks(
  app: FastifyInstance,
  counters: SharedCounters,
  o: { name: string; timeWindow: number; countersOf: (request: FastifyRequest) => { key: string; max: number }[] },
): AttemptHooks {
  return {
    async preHandler(request, reply) {
      const limits = o.countersOf(request);
      const states = await Promise.all(limits.map((l) => counters.incr(l.key, o.timeWindow)));
      (request as CountedRequest)[attemptKeys] = limits.map((l, i) => ({ key: l.key, window: states[i]?.window }));
      const over = states.findIndex((state, i) => state.current > (limits[i]?.max ?? 0));
      if (over < 0) return;
      const retryAfter = Math.max(1, Math.ceil((states[over]?.ttl ?? o.timeWindow) / 1000));
      throw limited(reply, limits[over]?.max ?? 0, retryAfter);
    },
    async onResponse(request, reply) {
      const keys = (request as CountedRequest)[attemptKeys];
      if (!keys || reply.statusCode === 400 || reply.statusCode === 401) return;
      await Promise.all(keys.map(({ key, window }) => counters.refund(key, window))).catch((err: unknown) =>
        app.log.warn({ err }, `${o.name} limiter: could not take back an attempt that was no failure`),
      );
    },
  };
}
