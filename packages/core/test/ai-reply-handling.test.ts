import { Writable } from 'node:stream';
import { aiConfigs, aiUsage } from '@cfaq/db/schema/index';
import {
  anthropicAdapter,
  createTestContext,
  type FakeAiServer,
  fakeProviderEnv,
  geminiAdapter,
  ollamaChatAdapter,
  openaiAdapter,
  type ProviderAdapter,
  startFakeAiServer,
  type TestContext,
} from '@cfaq/testkit';
import { Type as T } from '@sinclair/typebox';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testAiProviders } from '../src/ai/admin-config.js';
import { generateStructured, retryAfterMs } from '../src/ai/generate.js';
import { keyAad } from '../src/ai/settings.js';
import { extractInsights } from '../src/conf/extract-insights.js';
import type { Config } from '../src/config/schema.js';
import type { CoreContext } from '../src/context.js';
import { fixedClock } from '../src/runtime/clock.js';
import { createLoggerOptions } from '../src/runtime/logger.js';

/**
 * How generateStructured treats replies that are not answers: a refusal, output cut off at the token
 * cap, a provider error quoting the API key, and the provider's retry-after forms. Every case goes
 * through a fake server speaking the provider's real wire format (the testkit's adapters, with the
 * reply body or the error turned into what the real provider sends in that case).
 */

const Answer = T.Object({ answer: T.String({ minLength: 1 }), confidence: T.Number({ minimum: 0, maximum: 1 }) });
const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, GEMINI_API_KEY: undefined, OLLAMA_HOST: undefined };
const REFUSAL = "I'm sorry, but I can't help with that request.";
const CAP = 64;

type Stop = 'refuse' | 'truncate' | 'block_prompt' | 'full_at_cap';
// biome-ignore lint/suspicious/noExplicitAny: the providers' JSON bodies, edited in place by their wire names
type Body = Record<string, any>;

/** The provider's own body for a refusal or a reply cut off at the cap, from the adapter's success body. */
function stopBody(provider: string, api: string, body: Body, text: string, stop: Stop): Body {
  const half = text.slice(0, Math.floor(text.length / 2));
  switch (provider) {
    case 'openai':
      if (api === 'chat') {
        const choice = body.choices[0];
        if (stop === 'refuse') choice.message = { role: 'assistant', content: null, refusal: REFUSAL };
        else {
          choice.message.content = stop === 'truncate' ? half : text;
          choice.finish_reason = 'length';
        }
        return body;
      }
      if (stop === 'refuse') body.output[0].content = [{ type: 'refusal', refusal: REFUSAL }];
      else {
        body.status = 'incomplete';
        body.incomplete_details = { reason: 'max_output_tokens' };
        body.output[0].status = 'incomplete';
        body.output[0].content[0].text = stop === 'truncate' ? half : text;
      }
      return body;
    case 'anthropic':
      if (stop === 'refuse') {
        body.content = [];
        body.stop_reason = 'refusal';
      } else {
        body.content = [{ type: 'text', text: stop === 'truncate' ? half : text }];
        body.stop_reason = 'max_tokens';
      }
      return body;
    case 'gemini': {
      if (stop === 'block_prompt') return { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: body.usageMetadata };
      const cand = body.candidates[0];
      if (stop === 'refuse') {
        cand.content = { role: 'model', parts: [] };
        cand.finishReason = 'SAFETY';
      } else {
        cand.content.parts[0].text = stop === 'truncate' ? half : text;
        cand.finishReason = 'MAX_TOKENS';
      }
      return body;
    }
    default:
      body.message.content = stop === 'truncate' ? half : text;
      body.done_reason = 'length';
      return body;
  }
}

interface Fake extends FakeAiServer {
  /** What the next replies do (one entry per reply; none: answer normally). */
  stops: Stop[];
  /** 429s to answer next with these headers. */
  limited: Record<string, string>[];
  /** When set, the 401 message (a gateway quoting the key it got): receives the key sent. */
  unauthorized?: (sentKey: string) => string;
  /** Requests seen, answered or not. */
  hits: number;
}

async function startFake(adapter: ProviderAdapter): Promise<Fake> {
  let sent = '';
  // The wrapped adapter runs only on requests, after `self` is set below.
  let self: Fake;
  const wrapped: ProviderAdapter = {
    ...adapter,
    authorized(req, key) {
      self.hits++;
      const auth = req.headers.authorization;
      sent = String(
        req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? (typeof auth === 'string' ? auth.replace(/^Bearer /, '') : ''),
      );
      return adapter.authorized(req, key);
    },
    error: (status, message) => adapter.error(status, status === 401 && self.unauthorized ? self.unauthorized(sent) : message),
    success(call, text, value, usage) {
      const body = adapter.success(call, text, value, usage) as Body;
      const stop = self.stops.shift();
      return stop ? stopBody(adapter.provider, call.api, body, text, stop) : body;
    },
    extra(method, path, body, send) {
      if (adapter.extra?.(method, path, body, send)) return true;
      const headers = method === 'POST' ? self.limited.shift() : undefined;
      if (!headers) return false;
      self.hits++;
      // The server's send takes the response headers as its third argument.
      (send as (status: number, body: unknown, headers: Record<string, string>) => void)(
        429,
        adapter.error(429, 'rate limit exceeded'),
        headers,
      );
      return true;
    },
  };
  self = Object.assign(await startFakeAiServer(wrapped), { stops: [], limited: [], hits: 0 }) as Fake;
  return self;
}

let t: TestContext;
const fakes = {} as Record<'openai' | 'anthropic' | 'gemini' | 'ollama', Fake>;

beforeAll(async () => {
  t = await createTestContext({ clock: fixedClock('2026-06-01T12:00:00Z') });
  fakes.openai = await startFake(openaiAdapter);
  fakes.anthropic = await startFake(anthropicAdapter);
  fakes.gemini = await startFake(geminiAdapter);
  fakes.ollama = await startFake(ollamaChatAdapter(false));
});
afterAll(async () => {
  await Promise.all(Object.values(fakes).map((f) => f.close()));
  await t.close();
});
beforeEach(async () => {
  await t.ctx.db.delete(aiUsage);
  await t.ctx.db.delete(aiConfigs);
  for (const f of Object.values(fakes)) {
    f.calls.length = 0;
    f.stops.length = 0;
    f.limited.length = 0;
    f.unauthorized = undefined;
    f.hits = 0;
    f.reply = () => ({ answer: 'Use the reset link on the login page.', confidence: 0.9 });
  }
});

function withEnv(env: Partial<Record<keyof Config, unknown>>, log?: CoreContext['log']): CoreContext {
  return {
    ...t.ctx,
    ...(log ? { log } : {}),
    config: { ...t.ctx.config, ...NO_KEYS, AI_RETRY_BASE_MS: 1, AI_MAX_RETRIES: 2, ...env } as Config,
  };
}
const envFor = (p: keyof typeof fakes): Partial<Record<keyof Config, unknown>> => fakeProviderEnv(p, fakes[p]);
const req = {
  pipeline: 'auto_answer' as const,
  batchId: null,
  schema: Answer,
  system: 'You answer community questions.',
  prompt: 'How do I reset my password?',
  maxOutputTokens: CAP,
};

/** A pino logger with the app's redaction, writing to a string. */
function capturedLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { log: pino(createLoggerOptions({ level: 'debug' }), stream) as unknown as CoreContext['log'], text: () => lines.join('') };
}

describe('a refusal is "refused": one attempt, never "could not parse the response"', () => {
  const cases: [string, keyof typeof fakes, Partial<Record<keyof Config, unknown>>, Stop, RegExp][] = [
    ['openai responses: a refusal content part', 'openai', {}, 'refuse', /^openai refused to answer: "I'm sorry/],
    ['openai chat: message.refusal', 'openai', { OPENAI_API: 'chat' }, 'refuse', /^openai refused to answer: "I'm sorry/],
    ['anthropic: stop_reason refusal', 'anthropic', {}, 'refuse', /^anthropic refused to answer \(blocked by its content filter\)$/],
    ['gemini: finishReason SAFETY', 'gemini', {}, 'refuse', /^gemini refused to answer \(blocked by its content filter\)$/],
    ['gemini: a prompt blocked for safety', 'gemini', {}, 'block_prompt', /^gemini refused to answer/],
  ];
  for (const [name, p, env, stop, reason] of cases) {
    it(name, async () => {
      const f = fakes[p];
      f.stops.push(stop, stop, stop);
      const r = await generateStructured(withEnv({ ...envFor(p), ...env }), req);
      expect(r).toMatchObject({ ok: false, outcome: 'failed', failure: 'refused', attempts: 1 });
      if (!r.ok) {
        expect(r.reason).toMatch(reason);
        expect(r.reason).not.toMatch(/parse|malformed/);
      }
      expect(f.calls).toHaveLength(1);
      const [row] = await t.ctx.db.select().from(aiUsage);
      expect(row).toMatchObject({ calls: 1, failures: 1, retries: 0, inputTokens: 11, outputTokens: 7 });
    });
  }
});

describe('a reply cut off at the output token cap is "truncated": one attempt', () => {
  const cases: [string, keyof typeof fakes, Partial<Record<keyof Config, unknown>>][] = [
    ['openai responses: incomplete, max_output_tokens', 'openai', {}],
    ['openai chat: finish_reason length', 'openai', { OPENAI_API: 'chat' }],
    ['anthropic: stop_reason max_tokens', 'anthropic', {}],
    ['gemini: finishReason MAX_TOKENS', 'gemini', {}],
    ['ollama: done_reason length', 'ollama', {}],
  ];
  for (const [name, p, env] of cases) {
    it(name, async () => {
      const f = fakes[p];
      f.stops.push('truncate', 'truncate', 'truncate');
      const r = await generateStructured(withEnv({ ...envFor(p), ...env }), req);
      expect(r).toMatchObject({ ok: false, outcome: 'failed', failure: 'truncated', attempts: 1 });
      if (!r.ok) expect(r.reason).toBe(`${p} reply truncated at the output token cap (${CAP} tokens)`);
      expect(f.calls).toHaveLength(1);
    });
  }

  it('meeting insights cut off or refused are failures no retry would mend; a server error is one it may', async () => {
    const transcript = {
      segments: [{ start: 0, end: 4, speaker: 'Host', text: 'The studio opens at nine.' }],
      text: 'Host: The studio opens at nine.',
    };
    const extract = () => extractInsights(withEnv(envFor('openai')), { id: 'm-1', batchId: null, topic: 'Studio' }, transcript);
    fakes.openai.stops.push('truncate');
    expect(await extract()).toMatchObject({ outcome: 'failed', retryable: false, reason: expect.stringMatching(/truncated/) });
    fakes.openai.stops.push('refuse');
    expect(await extract()).toMatchObject({ outcome: 'failed', retryable: false });
    fakes.openai.failNext(500, 3);
    expect(await extract()).toMatchObject({ outcome: 'failed', retryable: true });
  });

  it('a reply that reached the cap but is complete and valid is the answer', async () => {
    fakes.ollama.stops.push('full_at_cap');
    const r = await generateStructured(withEnv(envFor('ollama')), req);
    expect(r).toMatchObject({ ok: true, value: { answer: 'Use the reset link on the login page.' }, attempts: 1 });
  });

  it('a failure before the refusal is retried; the reason names the attempt that refused', async () => {
    fakes.anthropic.failNext(500, 1);
    fakes.anthropic.stops.push('refuse');
    const r = await generateStructured(withEnv(envFor('anthropic')), req);
    expect(r).toMatchObject({ ok: false, failure: 'refused', attempts: 2 });
    if (!r.ok) expect(r.reason).toMatch(/^anthropic refused to answer .*\(attempt 2\)$/);
  });
});

describe('failure texts never carry an API key', () => {
  const KEY = 'plainkey-NOSHAPE-4242';

  it('an OpenAI-compatible gateway quoting the key in its 401: scrubbed from the reason and the log', async () => {
    const f = fakes.openai;
    f.unauthorized = (sent) => `bad key ${sent}`;
    const { log, text } = capturedLog();
    const ctx = withEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: f.baseUrl, OPENAI_API: 'chat' }, log);
    const r = await generateStructured(ctx, req);
    expect(r).toMatchObject({ ok: false, failure: 'http_error', status: 401, attempts: 1 });
    if (!r.ok) expect(r.reason).toBe('openai call failed after 1 attempt: 401: bad key [redacted]');
    expect(f.hits).toBe(1);
    expect(text()).toContain('[ai] attempt failed');
    expect(text()).not.toContain(KEY);
  });

  it('the admin-config key used for the call and every other configured key are scrubbed too', async () => {
    const f = fakes.openai;
    const stored = 'stored-admin-key-9876';
    const others = { ANTHROPIC_API_KEY: 'anthro-plain-1111', GEMINI_API_KEY: 'gemini-plain-2222' };
    // A gateway that tells everything it knows: the key it got, the environment's OpenAI key, the others.
    f.unauthorized = (sent) => `key ${sent} rejected (also not ${KEY}, ${others.ANTHROPIC_API_KEY}, ${others.GEMINI_API_KEY})`;
    const [row] = await t.ctx.db.insert(aiConfigs).values({ scope: 'global', provider: 'openai' }).returning();
    await t.ctx.db.update(aiConfigs).set({ apiKeys: { openai: t.ctx.secrets.encrypt(stored, keyAad(row?.id as string, 'openai')) } });
    const ctx = withEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: f.baseUrl, ...others });
    const r = await generateStructured(ctx, req);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe(
        'openai call failed after 1 attempt: 401: key [redacted] rejected (also not [redacted], [redacted], [redacted])',
      );
    }
    // The provider test (GET /admin/ai/providers/test) returns the same text.
    const report = await testAiProviders(ctx);
    const openai = report.results.find((x) => x.provider === 'openai');
    expect(openai?.error).toMatch(/^openai call failed after 1 attempt: 401: key \[redacted\]/);
    expect(JSON.stringify(report)).not.toMatch(new RegExp(`${stored}|${KEY}|anthro-plain|gemini-plain`));
  });
});

describe('retry-after: seconds, an HTTP date, retry-after-ms', () => {
  const timed = async (headers: Record<string, string>) => {
    fakes.openai.limited.push(headers);
    const started = Date.now();
    const r = await generateStructured(withEnv(envFor('openai')), req);
    return { r, ms: Date.now() - started };
  };

  it('retry-after-ms (OpenAI) is waited for', async () => {
    const { r, ms } = await timed({ 'retry-after-ms': '600' });
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(ms).toBeGreaterThanOrEqual(550);
  });

  it('retry-after as an HTTP date is waited for', async () => {
    // Whole seconds: a date 2 s ahead is between 1 and 2 s ahead.
    const { r, ms } = await timed({ 'retry-after': new Date(Date.now() + 2000).toUTCString() });
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(ms).toBeGreaterThanOrEqual(900);
  });

  it('retry-after in seconds, as before; an HTTP date already past means no wait', async () => {
    const secs = await timed({ 'retry-after': '1' });
    expect(secs.r).toMatchObject({ ok: true, attempts: 2 });
    expect(secs.ms).toBeGreaterThanOrEqual(950);
    const past = await timed({ 'retry-after': new Date(Date.now() - 60_000).toUTCString() });
    expect(past.r).toMatchObject({ ok: true, attempts: 2 });
    expect(past.ms).toBeLessThan(500);
  });

  it('every form is bounded at 30 s, and an unreadable value is ignored', () => {
    const now = Date.parse('2026-06-01T12:00:00Z');
    expect(retryAfterMs({ 'retry-after-ms': '250' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after-ms': '9000000' }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': '86400' }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': 'Mon, 01 Jun 2026 12:00:05 GMT' }, now)).toBe(5000);
    expect(retryAfterMs({ 'retry-after': 'Tue, 02 Jun 2026 12:00:00 GMT' }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': 'Mon, 01 Jun 2026 11:00:00 GMT' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after-ms': 'x', 'retry-after': '2' }, now)).toBe(2000);
    expect(retryAfterMs({}, now)).toBeUndefined();
  });
});
