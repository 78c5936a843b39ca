import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: { registry: Registry; httpDuration: Histogram<'method' | 'route' | 'status_code'> };
  }
}

/** Prometheus metrics: process defaults plus an HTTP duration histogram by route template and status. */
export const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    app.decorate('metrics', { registry, httpDuration });
    app.addHook('onResponse', (request, reply, done) => {
      // The route template, never the raw URL, so ids do not explode label cardinality.
      const route = request.routeOptions.url ?? 'unmatched';
      httpDuration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'metrics' },
);
