import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Operation {
  parameters?: { in: string; name: string; schema?: unknown }[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
  security?: unknown[];
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
        if (op.security && !codes.includes('401')) gaps.push(`${where}: needs a token but declares no 401`);
        for (const param of op.parameters ?? []) {
          if (param.in === 'path' && !param.schema) gaps.push(`${where}: path parameter ${param.name} has no schema`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });

  it('marks signed-in routes with bearer security and leaves public ones open', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    expect(doc.paths['/api/health']?.get?.security).toBeUndefined();
    expect(doc.paths['/api/auth/me']?.get?.security).toEqual([{ bearerAuth: [] }]);
  });
});
