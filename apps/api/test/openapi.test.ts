import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, GENEROUS_LIMITS, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  // The smallest body limit, so a body past it is cheap to send to every operation (the log route's own is 16 KiB).
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, RATE_LIMIT_USER_BURST_MAX: '1000000', BODY_LIMIT_BYTES: '1024' } });
});
afterAll(async () => {
  await t.close();
});

interface Operation {
  parameters?: { in: string; name: string; schema?: unknown }[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
  operationId?: string;
}

describe('OpenAPI document', () => {
  it('declares, for every operation, a success response and the problem responses it can answer', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const gaps: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/api/docs')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const codes = Object.keys(op.responses ?? {});
        if (!codes.some((c) => /^[23]\d\d$/.test(c))) gaps.push(`${where}: no success response`);
        const validates = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
        if (validates && !codes.includes('400')) gaps.push(`${where}: validates input but declares no 400`);
        // `{}` among the alternatives: the token is optional (a public route), and a bad one is taken as none.
        const needsToken = op.security?.some((s) => 'bearerAuth' in s) && !op.security.some((s) => Object.keys(s).length === 0);
        if (needsToken && !(codes.includes('401') && codes.includes('403'))) {
          gaps.push(`${where}: needs a token but does not declare 401 and 403`);
        }
        for (const param of op.parameters ?? []) {
          if (param.in === 'path' && !param.schema) gaps.push(`${where}: path parameter ${param.name} has no schema`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });

  it('documents the media types the server sends: problem+json for errors, Prometheus text for the metrics', async () => {
    type Responses = Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, { responses?: Responses }>>;
    };
    const mismatched: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          const types = Object.keys(response.content ?? {});
          const isProblem = Object.values(response.content ?? {}).some((c) => c.schema?.$ref?.endsWith('/Problem'));
          if (Number(status) >= 400 && isProblem && types.join() !== 'application/problem+json') {
            mismatched.push(`${method.toUpperCase()} ${path} ${status}: ${types.join(', ')}`);
          }
        }
      }
    }
    expect(mismatched).toEqual([]);
    expect(Object.keys(doc.paths['/api/metrics']?.get?.responses?.['200']?.content ?? {})).toEqual(['text/plain; version=0.0.4']);
    expect(Object.keys(doc.paths['/api/faq']?.get?.responses?.['200']?.content ?? {})).toEqual(['application/json']);
    const problem = await t.app.inject({ method: 'GET', url: '/api/faq/not-a-uuid' });
    expect(problem.headers['content-type']).toContain('application/problem+json');
  });

  it('marks signed-in routes with bearer security and public ones with an optional bearer', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    expect(doc.paths['/api/auth/me']?.get?.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/conf/webhook']?.post?.security).toEqual([{ providerSignature: [] }]);
    // The auth hook resolves the caller of every public route when a token is sent (a staff member sees
    // more of a FAQ, the limiter keys by user): `[]` told generated clients never to send it.
    const optional = [{}, { bearerAuth: [] }];
    const wrong: string[] = [];
    let publics = 0;
    for (const { method, url, access } of t.app.accessTable) {
      const op = doc.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      if (access !== 'public' || !op) continue;
      publics += 1;
      if (JSON.stringify(op.security) !== JSON.stringify(optional)) wrong.push(`${method} ${url}: ${JSON.stringify(op.security)}`);
    }
    expect(publics).toBeGreaterThan(30);
    expect(wrong).toEqual([]);
    expect(doc.paths['/api/faq/{id}']?.get?.security).toEqual(optional);
    expect(doc.paths['/api/community/posts']?.get?.security).toEqual(optional);
  });

  it("declares 409 REFERENCE_GONE on every write and 503 on every operation, keeping a route's own entry", async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const gaps: string[] = [];
    let writes = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const declared = Object.keys(op.responses ?? {});
        // A referenced row deleted mid-request (plugins/problem.ts): any write.
        if (['post', 'put', 'patch', 'delete'].includes(method)) {
          writes += 1;
          if (!declared.includes('409')) gaps.push(`${where}: no 409`);
        }
        // DATABASE_UNAVAILABLE and SHUTTING_DOWN: any operation.
        if (!declared.includes('503')) gaps.push(`${where}: no 503`);
      }
    }
    expect(writes).toBeGreaterThan(50);
    expect(gaps).toEqual([]);
    type Schema = { $ref?: string; properties?: object; anyOf?: Schema[] };
    type Described = { description?: string; content?: Record<string, { schema?: Schema }> };
    const responses = (path: string, method: string) => doc.paths[path]?.[method]?.responses as Record<string, Described>;
    // The health probe's own 503 (its body, or the shutdown's problem) is kept, not replaced by the shared one.
    const health503 = responses('/api/health', 'get')['503']?.content?.['application/json']?.schema;
    expect(JSON.stringify(health503)).toContain('"database"');
    expect(JSON.stringify(health503)).toContain('"code"');
    expect(responses('/api/faq/{id}', 'get')['503']?.content?.['application/problem+json']?.schema?.$ref).toMatch(/Problem$/);
  });

  it('gives every operation a unique operationId, a declared security, and the rate-limit answer', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      servers?: { url: string }[];
      paths: Record<string, Record<string, Operation>>;
    };
    expect(doc.servers?.length).toBeGreaterThan(0);
    const ids = new Map<string, string>();
    const gaps: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.operationId) gaps.push(`${where}: no operationId`);
        else if (ids.has(op.operationId)) gaps.push(`${where}: operationId ${op.operationId} also on ${ids.get(op.operationId)}`);
        else ids.set(op.operationId, where);
        if (!Array.isArray(op.security)) gaps.push(`${where}: no security`);
        // Only the provider webhook (the provider retries; its signature gates it) and the health probe (a probe
        // refused by the traffic's budget would take a healthy instance out of its load balancer) are exempt.
        const exempt = ['POST /api/conf/webhook', 'GET /api/health'];
        if (!exempt.includes(where) && !Object.keys(op.responses ?? {}).includes('429')) gaps.push(`${where}: no 429`);
      }
    }
    expect(gaps).toEqual([]);
    expect(doc.paths['/api/faq/{id}']?.get?.operationId).toBe('getFaqById');
  });

  it('declares 400, 413 and 415 on every operation whose body Fastify parses, and every status these bodies get', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const { headers } = await t.signIn('admin');
    const bodies = {
      // No parser takes text/plain (the webhook's scope takes every type, and answers its signature's 401).
      'text/plain': { payload: 'hello', 'content-type': 'text/plain' },
      // A malformed media type is 415 before any parser is chosen, the webhook's included.
      malformed: { payload: '{}', 'content-type': 'application/' },
      // Not JSON: 400 INVALID_JSON, on a route that reads no body too.
      'invalid JSON': { payload: '{', 'content-type': 'application/json' },
      // Past every body limit: 413 before the route's code runs.
      'too large': { payload: JSON.stringify({ x: 'x'.repeat(64 * 1024) }), 'content-type': 'application/json' },
    } as const;
    const undeclared: string[] = [];
    const sent: Record<string, Record<string, number>> = Object.fromEntries(Object.keys(bodies).map((kind) => [kind, {}]));
    let writes = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const declared = Object.keys(op.responses ?? {});
        if (!['post', 'put', 'patch', 'delete'].includes(method)) {
          // GET bodies are never read: neither status can happen, and neither is declared.
          if (declared.includes('413') || declared.includes('415')) undeclared.push(`${where}: declares 413/415 for a body it never reads`);
          continue;
        }
        writes += 1;
        for (const status of ['413', '415']) if (!declared.includes(status)) undeclared.push(`${where}: no ${status}`);
        const url = path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000');
        for (const [kind, body] of Object.entries(bodies)) {
          const res = await t.app.inject({
            method: method.toUpperCase() as 'POST',
            url,
            payload: body.payload,
            headers: { ...headers, 'content-type': body['content-type'] },
          });
          (sent[kind] as Record<string, number>)[where] = res.statusCode;
          if (!declared.includes(String(res.statusCode))) undeclared.push(`${where} (${kind} body): sent ${res.statusCode}, not declared`);
        }
      }
    }
    expect(writes).toBeGreaterThan(50);
    expect(undeclared).toEqual([]);
    expect(sent['text/plain']?.['POST /api/faq']).toBe(415);
    expect(sent['too large']?.['POST /api/faq']).toBe(413);
    expect(sent['text/plain']?.['POST /api/community/posts/{id}/upvote']).toBe(415);
    expect(sent['too large']?.['POST /api/community/posts/{id}/upvote']).toBe(413);
    expect(sent.malformed?.['POST /api/conf/webhook']).toBe(415);
    expect(sent['too large']?.['POST /api/conf/webhook']).toBe(413);
    expect(Object.values(sent['too large'] ?? {}).every((status) => status === 413)).toBe(true);
    expect(Object.values(sent.malformed ?? {}).every((status) => status === 415)).toBe(true);
  });

  it('declares 400 on every operation: the NUL guard refuses a query on any route, one without a schema too', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const gaps: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!Object.keys(op.responses ?? {}).includes('400')) gaps.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(gaps).toEqual([]);
    const health = await t.app.inject({ method: 'GET', url: '/api/health?x=%00' });
    expect(health.statusCode).toBe(400);
    expect(Object.keys(doc.paths['/api/health']?.get?.responses ?? {})).toContain('400');
    // A route listing its own 400 keeps its entry (the shared one is only a default).
    expect(doc.paths['/api/faq']?.post?.responses?.['400']).toBeDefined();
  });

  it('marks a request body optional exactly where an absent one is read as {}, and required where it is refused', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation & { requestBody?: { required?: boolean } }>>;
    };
    const requiredOf = (path: string, method: string) => doc.paths[path]?.[method]?.requestBody?.required;
    for (const [path, method] of [
      ['/api/community/posts/{id}/convert', 'post'],
      ['/api/conf/insights/{id}/convert-to-faq', 'post'],
      ['/api/knowledge/{id}/promote', 'put'],
      ['/api/search/unresolved/{id}/resolve', 'post'],
      ['/api/admin/escalated/{id}/resolve', 'post'],
      ['/api/admin/community/escalated-posts/{id}/resolve', 'post'],
    ] as const) {
      expect(requiredOf(path, method), `${method} ${path}`).toBe(false);
    }
    expect(requiredOf('/api/faq', 'post')).toBe(true);
    // The document agrees with the server on every body route: no body is refused (400 naming `body`)
    // where it is required, and never where it is not. The internal mark never reaches the document.
    const { headers } = await t.signIn('admin');
    const wrong: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (Object.keys(op).some((key) => key.startsWith('x-optional'))) wrong.push(`${where}: carries the internal mark`);
        if (!op.requestBody) continue;
        const url = path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000');
        const res = await t.app.inject({ method: method.toUpperCase() as 'POST', url, headers });
        // The transcript upload takes multipart or JSON, and refuses a request with neither as 415.
        const refused =
          res.statusCode === 415 ||
          (res.statusCode === 400 && (res.json() as { errors?: { path: string }[] }).errors?.some((e) => e.path === 'body') === true);
        if (op.requestBody.required !== refused) wrong.push(`${where}: required ${op.requestBody.required}, no body answered ${res.body}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('the transcript upload', () => {
  it('documents each media type with its own body: multipart has file (manual_vtt), JSON has rawText (manual_raw)', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } }>>;
    };
    const content = doc.paths['/api/conf/upload-transcript']?.post?.requestBody.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['application/json', 'multipart/form-data']);
    const multipart = content['multipart/form-data']?.schema as { properties: Record<string, { enum?: string[] }>; anyOf?: unknown };
    const json = content['application/json']?.schema as { properties: Record<string, { enum?: string[] }>; anyOf?: unknown };
    expect(multipart.anyOf).toBeUndefined();
    expect(json.anyOf).toBeUndefined();
    expect(Object.keys(multipart.properties).sort()).toEqual(['batchId', 'file', 'source', 'topic']);
    expect(Object.keys(json.properties).sort()).toEqual(['batchId', 'rawText', 'source', 'topic']);
    expect(JSON.stringify(content)).not.toContain('x-media-type');
  });
});
