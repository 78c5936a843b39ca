import { Code, databaseAnswers, safeEqual, unauthorized } from '@cfaq/core';
import type { FastifyError, onRequestHookHandler } from 'fastify';
import { actorOf } from '../../lib/actor.js';
import { problemResponses } from '../../lib/problem.js';
import type { RoutePlugin } from '../../lib/types.js';
import { HealthResponses, LogBody, LogResponse, WarmResponse } from './schemas.js';

const VERSION = process.env.npm_package_version ?? '0.1.0';

/**
 * With METRICS_TOKEN set, /api/metrics answers only `Authorization: Bearer <METRICS_TOKEN>` (what
 * Prometheus sends with `authorization: { credentials: ... }` in its scrape config); others get 401.
 */
function metricsGuard(token: string | undefined): onRequestHookHandler {
  return (request, _reply, done) => {
    if (!token) return done();
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (match && safeEqual(match[1] as string, token)) return done();
    done(unauthorized('GET /api/metrics needs the metrics bearer token', Code.METRICS_TOKEN_REQUIRED) as unknown as FastifyError);
  };
}

/** Operational routes: liveness with a database check, Prometheus metrics, embedder warm-up, frontend logs. */
export const opsRoutes: RoutePlugin = async (app) => {
  // The health probe is not rate limited: behind a proxy every client shares one address, and a probe refused
  // with 429 by the traffic's budget would take a healthy instance out of its load balancer.
  app.get(
    '/health',
    {
      config: { access: 'public', rateLimit: false },
      schema: {
        tags: ['ops'],
        summary: 'Liveness and database check',
        description: '503 with the health body when the database does not answer; 503 SHUTTING_DOWN (a problem) while the server stops.',
        response: HealthResponses,
      },
    },
    async (_request, reply) => {
      const database = (await databaseAnswers(app.ctx)) ? ('ok' as const) : ('down' as const);
      const body = {
        status: database === 'ok' ? ('ok' as const) : ('degraded' as const),
        database,
        uptimeSeconds: process.uptime(),
        version: VERSION,
      };
      return reply.status(database === 'ok' ? 200 : 503).send(body);
    },
  );

  // Metrics stay rate limited: a scrape every 15 s is far inside the budget, and the limit keeps a
  // caller from guessing METRICS_TOKEN at speed.
  app.get(
    '/metrics',
    {
      config: { access: 'public' },
      schema: {
        tags: ['ops'],
        summary: 'Prometheus metrics (text exposition format); with METRICS_TOKEN set, only for Authorization: Bearer <METRICS_TOKEN>',
        response: { 200: { type: 'string' }, ...problemResponses(401) },
      },
      onRequest: metricsGuard(app.ctx.config.METRICS_TOKEN),
    },
    async (_request, reply) => {
      const { registry } = app.metrics;
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );

  app.get(
    '/warm',
    {
      config: { access: 'public' },
      schema: {
        tags: ['ops'],
        summary: 'Load the embedding model so the first search is not the slow one',
        response: { 200: WarmResponse, ...problemResponses(503) },
      },
    },
    async () => app.ctx.embedder.warm(),
  );

  app.post(
    '/log',
    {
      config: { access: 'public', rateLimit: app.limits.logIngest },
      bodyLimit: app.ctx.config.LOG_INGEST_MAX_BYTES,
      schema: {
        tags: ['ops'],
        summary: 'Frontend log ingestion (one entry or { entries: [...] }, written as structured log lines)',
        body: LogBody,
        response: { 202: LogResponse, ...problemResponses(413, 415) },
      },
    },
    async (request, reply) => {
      const entries = 'entries' in request.body ? request.body.entries : [request.body];
      const log = request.log.child({ source: 'frontend', userId: actorOf(request)?.id });
      for (const e of entries) {
        log[e.level]({ frontend: { context: e.context, url: e.url, userAgent: e.userAgent, clientTime: e.timestamp } }, e.message);
      }
      return reply.status(202).send({ accepted: entries.length });
    },
  );
};
