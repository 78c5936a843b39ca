import { Writable } from 'node:stream';
import { createLoggerOptions } from '@cfaq/core';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';

let t: TestContext;
let app: FastifyInstance;
const lines: string[] = [];

beforeAll(async () => {
  t = await createTestContext();
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  app = await buildApp({ ctx: t.ctx, logger: { ...createLoggerOptions({ level: 'info' }), stream } });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await t.close();
});

describe('request log', () => {
  it('never carries secrets from a query string (OAuth code and state, tokens, passwords), but keeps the rest', async () => {
    const secrets = ['oauth-code-4711', 'signed-state-0815', 'at-secret-42', 'hunter2-pw', 'sig-99x', 'client-s3cret'];
    const urls = [
      '/api/conf/auth/callback?code=oauth-code-4711&state=signed-state-0815',
      '/api/search?q=vacation+policy&access_token=at-secret-42',
      '/api/health?password=hunter2-pw&Signature=sig-99x',
      '/api/no-such-route?client_secret=client-s3cret&page=2',
    ];
    for (const url of urls) await app.inject({ method: 'GET', url });
    const out = lines.join('');
    expect(out).toContain('incoming request');
    for (const secret of secrets) expect(out).not.toContain(secret);
    expect(out).toContain('/api/search?q=vacation+policy&access_token=[redacted]');
    expect(out).toContain('code=[redacted]&state=[redacted]');
    expect(out).toContain('page=2');
  });
});
