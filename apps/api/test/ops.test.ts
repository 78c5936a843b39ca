import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemPlugin, shutdownGuard } from '../src/plugins/problem.js';
import { HealthResponses } from '../src/routes/ops/schemas.js';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('operational routes', () => {
  it('GET /api/health answers ok with a database check', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', database: 'ok' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('GET /api/health answers 503 when the database is unreachable', async () => {
    const down = await createTestApp();
    await down.ctx.pool.end();
    try {
      const res = await down.app.inject({ method: 'GET', url: '/api/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'degraded', database: 'down' });
    } finally {
      await down.app.close();
      await down.close().catch(() => {});
    }
  });

  it('echoes a well-formed x-request-id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
    // The docs (routes without an access level) and the router's refusals too.
    for (const url of ['/api/docs/json', '/api/docs', '/api/faq/%zz']) {
      const other = await t.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'abc-124' } });
      expect(other.headers['x-request-id'], url).toBe('abc-124');
    }
  });

  it('sends x-request-id on errors too: 400, 401 and an unknown route', async () => {
    const answers = [
      await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: '' } }),
      await t.app.inject({ method: 'GET', url: '/api/auth/me' }),
      await t.app.inject({ method: 'GET', url: '/api/no-such-route' }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([400, 401, 404]);
    for (const r of answers) expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET /api/metrics serves Prometheus text with the HTTP histogram by route template', async () => {
    await t.app.inject({ method: 'GET', url: '/api/health' });
    const res = await t.app.inject({ method: 'GET', url: '/api/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('process_cpu_user_seconds_total');
    expect(res.body).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/health"[^}]*status_code="200"/);
  });

  it('the histogram labels each answer by its route template, status and method, and unknown routes as unmatched', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const series = [
      'method="GET",route="/api/faq/:id",status_code="404"',
      'method="POST",route="/api/search",status_code="400"',
      'method="DELETE",route="unmatched",status_code="404"',
    ];
    const counts = async () => {
      const body = (await t.app.inject({ method: 'GET', url: '/api/metrics' })).body;
      expect(body).not.toContain(id);
      return series.map((labels) => Number(new RegExp(`http_request_duration_seconds_count\\{${labels}\\} (\\d+)`).exec(body)?.[1] ?? 0));
    };
    const before = await counts();
    await t.app.inject({ method: 'GET', url: `/api/faq/${id}` });
    await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: '' } });
    await t.app.inject({ method: 'DELETE', url: '/api/no-such-route' });
    const after = await counts();
    expect(after.map((n, i) => n - (before[i] as number))).toEqual([1, 1, 1]);
  });

  it('GET /api/warm warms the embedder', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/warm' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ model: expect.any(String), ms: expect.any(Number) });
  });

  it('POST /api/log accepts one entry or a batch', async () => {
    const one = await t.app.inject({ method: 'POST', url: '/api/log', payload: { level: 'error', message: 'boom', url: '/x' } });
    expect(one.statusCode).toBe(202);
    expect(one.json()).toEqual({ accepted: 1 });
    const many = await t.app.inject({
      method: 'POST',
      url: '/api/log',
      payload: {
        entries: [
          { level: 'info', message: 'a' },
          { level: 'warn', message: 'b' },
        ],
      },
    });
    expect(many.json()).toEqual({ accepted: 2 });
  });

  it('POST /api/log rejects a bad level naming the field', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/log', payload: { level: 'loud', message: 'x' } });
    const body = expectProblem(res, 400, 'VALIDATION_FAILED');
    // The one wrong field, not the batch form's fields too (entry or batch: the closest form's errors).
    expect(body.errors).toEqual([{ path: 'body.level', message: 'must be one of: debug, info, warn, error' }]);
    const batch = await t.app.inject({ method: 'POST', url: '/api/log', payload: { entries: [] } });
    expect(expectProblem(batch, 400, 'VALIDATION_FAILED').errors).toEqual([
      { path: 'body.entries', message: 'must NOT have fewer than 1 items' },
    ]);
  });

  it('POST /api/log refuses an oversized body with 413', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/log', payload: { level: 'info', message: 'x'.repeat(20_000) } });
    expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('POST /api/log refuses a non-JSON body with 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/log', headers: { 'content-type': 'text/csv' }, payload: 'a,b' });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a text/plain body is the wrong media type (415), not a malformed object', async () => {
    // Fastify parses text/plain into a string by default, which the schema then refused as a 400.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/log',
      headers: { 'content-type': 'text/plain' },
      payload: '{"level":"info"}',
    });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('malformed JSON is a 400 problem, not a 500', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/log',
      headers: { 'content-type': 'application/json' },
      payload: '{"level":',
    });
    expectProblem(res, 400);
  });

  it('a request arriving while the server shuts down gets a 503 problem telling it to retry', async () => {
    // The guard the problem plugin installs, on an app of its own whose shutdown the test starts by hand
    // (a request cannot be injected into an app once its close() has begun).
    const app = Fastify({ return503OnClosing: false });
    const guard = shutdownGuard();
    app.addHook('onRequest', guard.onRequest);
    app.get('/x', async () => ({ ok: true }));
    expect((await app.inject({ method: 'GET', url: '/x' })).statusCode).toBe(200);
    guard.preClose(() => {});
    const res = await app.inject({ method: 'GET', url: '/x' });
    expectProblem(res, 503, 'SHUTTING_DOWN');
    expect(res.headers['retry-after']).toBe('1');
    await app.close();
  });

  it('the health probe during shutdown gets the same 503 problem (its own 503 body schema made it a 500)', async () => {
    const app = Fastify({ return503OnClosing: false });
    const guard = shutdownGuard();
    app.addHook('onRequest', guard.onRequest);
    app.get('/health', { schema: { response: HealthResponses } }, async () => ({
      status: 'ok',
      database: 'ok',
      uptimeSeconds: 1,
      version: 'x',
    }));
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    guard.preClose(() => {});
    expectProblem(await app.inject({ method: 'GET', url: '/health' }), 503, 'SHUTTING_DOWN');
    await app.close();
  });

  it('a request in flight on a kept-alive connection when the shutdown begins is answered and closes its socket, so close() ends at once', async () => {
    const app = Fastify({ return503OnClosing: false });
    const guard = shutdownGuard();
    app.addHook('preClose', guard.preClose);
    app.addHook('onRequest', guard.onRequest);
    app.addHook('onSend', guard.onSend);
    let arrived: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    app.get('/slow', async () => {
      arrived();
      await new Promise((r) => setTimeout(r, 300));
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    try {
      const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/slow', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
          })
          .on('error', reject);
      });
      await inFlight;
      const started = performance.now();
      const closed = app.close();
      expect(await answer).toEqual({ status: 200, connection: 'close' });
      await closed;
      // Without the header the kept-alive socket held close() until the agent dropped it.
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      agent.destroy();
    }
  });

  it('a write whose referenced row was deleted meanwhile (a foreign key refusal) is a 409 problem, not a 500', async () => {
    const app = Fastify({ logger: false });
    await app.register(problemPlugin);
    // What PostgreSQL raises when, say, a user is deleted while their post is being inserted.
    app.post('/x', async () => {
      await t.ctx.pool.query(
        `insert into community_posts (title, body, author_id) values ('t', 'b', '00000000-0000-4000-8000-000000000000')`,
      );
    });
    expectProblem(await app.inject({ method: 'POST', url: '/x' }), 409, 'REFERENCE_GONE');
    await app.close();
  });

  it('unknown routes answer a 404 problem', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/does-not-exist' });
    const body = expectProblem(res, 404, 'ROUTE_NOT_FOUND');
    expect(body).toMatchObject({
      type: expect.stringContaining('route-not-found'),
      title: 'Not Found',
      status: 404,
      instance: '/api/does-not-exist',
    });
  });

  it('URLs the router refuses answer a problem too: a bad escape, an overlong path parameter', async () => {
    const bad = await t.app.inject({ method: 'GET', url: '/api/batches/by-slug/%E0%A4%A' });
    expectProblem(bad, 400, 'INVALID_URL');
    expect(bad.headers['content-type']).toContain('application/problem+json');
    const long = await t.app.inject({ method: 'GET', url: `/api/batches/by-slug/${'a'.repeat(150)}` });
    expect(expectProblem(long, 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('params');
    expect(long.headers['x-request-id']).toBeTruthy();
  });

  it('serves the OpenAPI document and UI under /api/docs', async () => {
    const json = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(json.statusCode).toBe(200);
    const doc = json.json() as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/health', '/api/metrics', '/api/warm', '/api/log']));
    const ui = await t.app.inject({ method: 'GET', url: '/api/docs' });
    expect([200, 302]).toContain(ui.statusCode);
  });
});
