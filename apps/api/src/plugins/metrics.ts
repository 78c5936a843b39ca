import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

type Labels = { method: string; route: string; status_code: string };

declare module 'fastify' {
  interface FastifyInstance {
    metrics: {
      registry: Registry;
      httpDuration: Histogram<keyof Labels>;
      /** Records an answer of no route (the not-found handler's, which route hooks never see). */
      observeUnmatched(method: string, status: number, seconds: number): void;
    };
  }
}

/**
 * Label objects by method and status code for one route template, each built once: the template
 * comes from the route declaration, never the raw URL, so ids do not explode label cardinality.
 */
function routeLabels(route: string): (method: string, status: number) => Labels {
  const byMethod = new Map<string, Map<number, Labels>>();
  return (method, status) => {
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let labels = byStatus.get(status);
    if (!labels) {
      labels = { method, route, status_code: String(status) };
      byStatus.set(status, labels);
    }
    return labels;
  };
}

/**
 * Prometheus metrics: process defaults plus an HTTP duration histogram by route template and status.
 * Each route gets its own onResponse hook with its template bound when it is declared, rather than
 * reading `request.routeOptions` (an object built on every read) and building labels per request.
 * Register before any plugin that declares routes, so every route is measured.
 */
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
    const unmatched = routeLabels('unmatched');
    app.decorate('metrics', {
      registry,
      httpDuration,
      observeUnmatched(method: string, status: number, seconds: number) {
        httpDuration.observe(unmatched(method, status), seconds);
      },
    });
    app.addHook('onRoute', (route) => {
      const labels = routeLabels(route.url ?? route.path ?? 'unmatched');
      const hook: onResponseHookHandler = (request, reply, done) => {
        httpDuration.observe(labels(request.method, reply.statusCode), reply.elapsedTime / 1000);
        done();
      };
      const own = route.onResponse;
      route.onResponse = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), hook];
    });
  },
  { name: 'metrics' },
);
