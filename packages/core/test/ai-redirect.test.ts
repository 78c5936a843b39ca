import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestContext, fakeProviderEnv, type TestContext } from '@cfaq/testkit';
import { Type as T } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStructured } from '../src/ai/generate.js';
import type { Config } from '../src/config/schema.js';
import type { CoreContext } from '../src/context.js';

/**
 * A provider's host answering a redirect to another origin must not get the key sent there. Fetch drops
 * `authorization` across origins but not Anthropic's `x-api-key` or Gemini's `x-goog-api-key`, which
 * the clients followed a 307 with (found by an audit: the key reached the catcher below).
 */

const KEY = 'provider-key-must-stay-home-0123';
let t: TestContext;
let redirector: Server;
let catcher: Server;
let redirectUrl: string;
const caught: IncomingHttpHeaders[] = [];
let redirected = 0;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  t = await createTestContext();
  catcher = createServer((req, res) => {
    caught.push(req.headers);
    res.writeHead(500).end();
  });
  const catcherPort = await listen(catcher);
  // Another origin: `localhost` where the provider is configured at 127.0.0.1.
  redirector = createServer((req, res) => {
    redirected++;
    res.writeHead(307, { location: `http://localhost:${catcherPort}/catch${req.url}` }).end();
  });
  redirectUrl = `http://127.0.0.1:${await listen(redirector)}`;
});
afterAll(async () => {
  await Promise.all([redirector, catcher].map((s) => new Promise((resolve) => s.close(resolve))));
  await t.close();
});

const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, GEMINI_API_KEY: undefined, OLLAMA_HOST: undefined };
const req = {
  pipeline: 'auto_answer' as const,
  batchId: null,
  schema: T.Object({ answer: T.String() }),
  system: 'You answer community questions.',
  prompt: 'How do I reset my password?',
  maxOutputTokens: 64,
};

describe('a provider answering a redirect', () => {
  for (const provider of ['openai', 'anthropic', 'gemini', 'ollama'] as const) {
    it(`${provider}: the call fails at once with the 3xx, and the other origin never hears from us`, async () => {
      caught.length = 0;
      redirected = 0;
      const env = fakeProviderEnv(provider, { apiKey: KEY, baseUrl: redirectUrl });
      const ctx: CoreContext = {
        ...t.ctx,
        config: { ...t.ctx.config, ...NO_KEYS, AI_RETRY_BASE_MS: 1, AI_MAX_RETRIES: 2, ...env } as Config,
      };
      const r = await generateStructured(ctx, req);
      expect(r).toMatchObject({ ok: false, failure: 'http_error', status: 307, attempts: 1 });
      expect(redirected).toBe(1);
      expect(caught).toEqual([]);
    });
  }
});
