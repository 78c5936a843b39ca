import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Shared core of the fake AI provider servers (openai.ts, anthropic.ts, gemini.ts, ollama-chat.ts):
 * an HTTP server on 127.0.0.1:0 that records every call and answers through a provider-specific
 * wire format, with switches for the failures a real provider shows: slow answers, 429/500 (with the
 * provider's error body and an optional retry-after), a hang (the client must time out), a reply whose
 * content is not JSON, a reply whose JSON does not match the schema, and a non-JSON HTTP body.
 *
 *   const fake = await startFakeOpenAI();          // or startFakeAnthropic / startFakeGemini / startFakeOllamaChat
 *   env: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.baseUrl }
 *   fake.reply = (call) => ({ answer: 'x', confidence: 0.9 });   // what the model "says" (an object becomes JSON text)
 *   fake.failNext(429, 2); fake.malformedNext(); fake.hangNext(); fake.delayMs = 500;
 */
export type FakeAiProvider = 'openai' | 'anthropic' | 'gemini' | 'ollama';

export interface FakeAiCall {
  provider: FakeAiProvider;
  /** openai: chat or responses; anthropic: output_format or json_tool; gemini/ollama: native. */
  api: string;
  path: string;
  model: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The JSON schema the client asked the reply to follow (null: none). */
  schema: Record<string, unknown> | null;
  system: string;
  /** All user text of the request, joined. */
  prompt: string;
  maxOutputTokens: number | null;
}

/** What the model answers: an object (sent as its JSON text) or `{ text }` (sent verbatim). */
export type FakeReply = unknown;

type Fault = { kind: 'status'; status: number; retryAfter?: number } | { kind: 'malformed' } | { kind: 'hang' } | { kind: 'broken_body' };

export interface FakeAiServer {
  provider: FakeAiProvider;
  /** Server origin, e.g. http://127.0.0.1:1234. */
  url: string;
  /** The value for the provider's *_BASE_URL / OLLAMA_HOST setting. */
  baseUrl: string;
  /** The key the fake accepts (any other gets the provider's 401). */
  apiKey: string;
  calls: FakeAiCall[];
  /** Milliseconds before every answer. */
  delayMs: number;
  reply: (call: FakeAiCall) => FakeReply | Promise<FakeReply>;
  usage: { inputTokens: number; outputTokens: number };
  failNext(status: number, count?: number, opts?: { retryAfterSeconds?: number }): void;
  /** The model's text is not JSON. */
  malformedNext(count?: number): void;
  /** Never answers; the client has to time out. */
  hangNext(count?: number): void;
  /** HTTP 200 whose body is not JSON at all. */
  brokenBodyNext(count?: number): void;
  /** Calls answered right now (for concurrency checks) and the most at once. */
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

export interface ProviderAdapter {
  provider: FakeAiProvider;
  /** Path suffix the clients add to the base URL (openai: /v1, anthropic: none, gemini: none, ollama: none). */
  basePath: string;
  authorized(req: IncomingMessage, apiKey: string): boolean;
  /** null: not an endpoint of this API (404). */
  parse(
    method: string,
    path: string,
    body: Record<string, unknown>,
    headers: IncomingMessage['headers'],
  ): Omit<FakeAiCall, 'provider' | 'headers' | 'body' | 'path'> | null;
  success(call: FakeAiCall, text: string, value: unknown, usage: { inputTokens: number; outputTokens: number }): unknown;
  error(status: number, message: string): unknown;
  /** Extra endpoints (Ollama's /api/embed, /api/tags); return true when handled. */
  extra?(method: string, path: string, body: Record<string, unknown>, send: (status: number, body: unknown) => void): boolean;
}

/** A value that satisfies a JSON schema, for the default reply. */
export function sampleFromSchema(schema: unknown): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const anyOf = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (anyOf?.length) return sampleFromSchema(anyOf[0]);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(props)) out[k] = sampleFromSchema(v);
      return out;
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 1;
      return Array.from({ length: Math.max(1, min) }, () => sampleFromSchema(s.items));
    }
    case 'string':
      return typeof s.minLength === 'number' && s.minLength > 10 ? 'x'.repeat(s.minLength) : 'A grounded answer from the fake provider.';
    case 'number':
    case 'integer': {
      const min = typeof s.minimum === 'number' ? s.minimum : 0;
      const max = typeof s.maximum === 'number' ? s.maximum : min + 1;
      return type === 'integer' ? Math.ceil((min + max) / 2) : (min + max) / 2;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) => (typeof p === 'string' ? p : ((p as { text?: string }).text ?? '')))
      .filter(Boolean)
      .join('\n');
  return '';
};
export const joinText = textOf;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeAiServer(adapter: ProviderAdapter, opts: { apiKey?: string } = {}): Promise<FakeAiServer> {
  const apiKey = opts.apiKey ?? `fake-${adapter.provider}-key-0123456789`;
  const faults: Fault[] = [];
  const hung = new Set<ServerResponse>();
  const fake: FakeAiServer = {
    provider: adapter.provider,
    url: '',
    baseUrl: '',
    apiKey,
    calls: [],
    delayMs: 0,
    reply: (call) => sampleFromSchema(call.schema),
    usage: { inputTokens: 11, outputTokens: 7 },
    inFlight: 0,
    maxInFlight: 0,
    failNext(status, count = 1, o = {}) {
      for (let i = 0; i < count; i++)
        faults.push({ kind: 'status', status, ...(o.retryAfterSeconds !== undefined ? { retryAfter: o.retryAfterSeconds } : {}) });
    },
    malformedNext(count = 1) {
      for (let i = 0; i < count; i++) faults.push({ kind: 'malformed' });
    },
    hangNext(count = 1) {
      for (let i = 0; i < count; i++) faults.push({ kind: 'hang' });
    },
    brokenBodyNext(count = 1) {
      for (let i = 0; i < count; i++) faults.push({ kind: 'broken_body' });
    },
    async close() {
      for (const r of hung) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return send(400, adapter.error(400, 'request body is not valid JSON'));
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    if (adapter.extra?.(method, url.pathname, body, send)) return;
    const parsed = adapter.parse(method, url.pathname, body, req.headers);
    if (!parsed) return send(404, adapter.error(404, `no route ${method} ${url.pathname}`));
    if (!adapter.authorized(req, apiKey)) return send(401, adapter.error(401, 'invalid api key'));
    const call: FakeAiCall = { provider: adapter.provider, path: url.pathname, headers: req.headers, body, ...parsed };
    fake.calls.push(call);
    fake.inFlight++;
    fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
    try {
      const fault = faults.shift();
      if (fault?.kind === 'hang') {
        hung.add(res);
        res.on('close', () => hung.delete(res));
        await once(res, 'close');
        return;
      }
      if (fake.delayMs > 0) await new Promise((r) => setTimeout(r, fake.delayMs));
      if (fault?.kind === 'status')
        return send(fault.status, adapter.error(fault.status, fault.status === 429 ? 'rate limit exceeded' : 'internal error'), {
          ...(fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {}),
        });
      if (fault?.kind === 'broken_body') return send(200, '{"id": "broken", "choices": [');
      let text: string;
      let value: unknown;
      if (fault?.kind === 'malformed') {
        text = 'Sure! Here is the answer you asked for: {answer: oops';
        value = undefined;
      } else {
        value = await fake.reply(call);
        const v = value as { text?: unknown } | null;
        text = v && typeof v === 'object' && Object.keys(v).length === 1 && typeof v.text === 'string' ? v.text : JSON.stringify(value);
      }
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch {
        obj = undefined;
      }
      return send(200, adapter.success(call, text, obj, fake.usage));
    } finally {
      fake.inFlight--;
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.baseUrl = `${fake.url}${adapter.basePath}`;
  return fake;
}
