import type { Config } from '@cfaq/core';
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';

/** The spec's named limiters. Each route that uses one gets its own counters. */
export interface Limits {
  login: RateLimitOptions;
  register: RateLimitOptions;
  password: RateLimitOptions;
  twoFactor: RateLimitOptions;
  identity: RateLimitOptions;
  adminWrite: RateLimitOptions;
  searchSuggest: RateLimitOptions;
  logIngest: RateLimitOptions;
  /** FAQ suggestions per user per hour. */
  suggest: RateLimitOptions;
  /** FAQ flags and reports per user per hour (one counter per route). */
  flag: RateLimitOptions;
}

declare module 'fastify' {
  interface FastifyInstance {
    limits: Limits;
    /**
     * The identity-creation limiter as an onRequest hook, one counter shared by every route that
     * creates an identity (registration, provider connections), on top of the route's own limiter.
     */
    identityLimit: onRequestAsyncHookHandler;
  }
}

/** Signed-in callers are counted per user; anonymous ones per client address (trusted proxies honoured). */
export const rateLimitKey = (request: FastifyRequest) => (request.auth ? `user:${request.auth.id}` : `ip:${request.ip}`);
const byAddress = (request: FastifyRequest) => `ip:${request.ip}`;

export function buildLimits(c: Config): Limits {
  const window = c.RATE_LIMIT_WINDOW_SECONDS * 1000;
  return {
    login: { max: c.RATE_LIMIT_LOGIN_MAX, timeWindow: window, keyGenerator: byAddress },
    register: { max: c.RATE_LIMIT_REGISTER_MAX, timeWindow: window, keyGenerator: byAddress },
    password: { max: c.RATE_LIMIT_PASSWORD_MAX, timeWindow: window },
    twoFactor: { max: c.RATE_LIMIT_TWO_FACTOR_MAX, timeWindow: window },
    identity: { max: c.RATE_LIMIT_IDENTITY_MAX, timeWindow: window },
    adminWrite: { max: c.RATE_LIMIT_ADMIN_WRITE_MAX, timeWindow: 60_000 },
    searchSuggest: { max: c.SEARCH_SUGGEST_RATE_LIMIT, timeWindow: 60_000 },
    logIngest: { max: c.LOG_INGEST_RATE_LIMIT, timeWindow: 60_000, keyGenerator: byAddress },
    suggest: { max: c.RATE_LIMIT_SUGGEST_MAX, timeWindow: 3_600_000 },
    flag: { max: c.RATE_LIMIT_FLAG_MAX, timeWindow: 3_600_000 },
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
    await app.register(rateLimit, {
      global: true,
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
      reply.header('retry-after', result.ttlInSeconds);
      throw tooMany(result.max, result.ttlInSeconds);
    });
  },
  { name: 'rate-limit', dependencies: ['context', 'auth'] },
);
