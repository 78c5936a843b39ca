import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOllamaRequest {
  path: string;
  /** The Authorization header sent, if any (OLLAMA_API_KEY). */
  authorization?: string;
  body: { model?: string; input?: string | string[]; truncate?: boolean; keep_alive?: string | number };
}

export interface FakeOllama {
  url: string;
  requests: FakeOllamaRequest[];
  /** Next responses: a status and error text instead of embeddings. */
  failNext(status: number, error: string): void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

/**
 * A local server speaking Ollama's POST /api/embed: `{ model, input: string | string[] }` ->
 * `{ model, embeddings: number[][], total_duration, load_duration, prompt_eval_count }`; unknown
 * model -> 404 `{ error }`. Vectors come from `vectorFor(text)` (default: a deterministic 768-dim one).
 */
export async function startFakeOllama(opts: { models?: string[]; vectorFor?: (text: string) => number[] } = {}): Promise<FakeOllama> {
  const models = opts.models ?? ['nomic-embed-text'];
  const vectorFor =
    opts.vectorFor ??
    ((text: string) => {
      const v = new Array<number>(768).fill(0);
      for (let i = 0; i < text.length; i++) {
        const k = (text.charCodeAt(i) * 31 + i) % 768;
        v[k] = (v[k] ?? 0) + 1;
      }
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  const requests: FakeOllamaRequest[] = [];
  let failures: { status: number; error: string }[] = [];
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/api/embed') return send(404, { error: '404 page not found' });
    const body = (await readJson(req)) as FakeOllamaRequest['body'];
    requests.push({ path: req.url, body, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    const fail = failures.shift();
    if (fail) return send(fail.status, { error: fail.error });
    if (!body.model || !models.includes(body.model)) return send(404, { error: `model "${body.model}" not found, try pulling it first` });
    const input = Array.isArray(body.input) ? body.input : [body.input ?? ''];
    return send(200, {
      model: body.model,
      embeddings: input.map(vectorFor),
      total_duration: 1_000_000,
      load_duration: 100_000,
      prompt_eval_count: input.length,
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(status, error) {
      failures = [...failures, { status, error }];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
