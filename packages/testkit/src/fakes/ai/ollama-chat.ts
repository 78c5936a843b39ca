import { type FakeAiServer, joinText, type ProviderAdapter, startFakeAiServer } from './server.js';

type Msg = { role?: string; content?: unknown };

/** Deterministic unit vector of a text (the same as the embeddings fake's default). */
function vectorFor(text: string): number[] {
  const v = new Array<number>(768).fill(0);
  for (let i = 0; i < text.length; i++) {
    const k = (text.charCodeAt(i) * 31 + i) % 768;
    v[k] = (v[k] ?? 0) + 1;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

/**
 * Ollama: POST /api/chat with `format` = the JSON schema and `stream: false`; reply `message.content`,
 * `done: true`, `done_reason`, `prompt_eval_count`, `eval_count`. Errors `{ error }`. Also answers
 * POST /api/embed and GET /api/tags, since OLLAMA_HOST makes Ollama the embedder too. No auth (a
 * bearer token is accepted when the fake was given an apiKey). OLLAMA_HOST: the server URL.
 */
export function ollamaChatAdapter(requireKey: boolean): ProviderAdapter {
  return {
    provider: 'ollama',
    basePath: '',
    authorized: (req, key) => !requireKey || req.headers.authorization === `Bearer ${key}`,
    parse(method, path, body) {
      if (method !== 'POST' || path !== '/api/chat') return null;
      const messages = (body.messages ?? []) as Msg[];
      const format = body.format;
      const options = (body.options ?? {}) as { num_predict?: number };
      return {
        api: 'chat',
        model: String(body.model ?? ''),
        schema: format && typeof format === 'object' ? (format as Record<string, unknown>) : null,
        system: messages
          .filter((m) => m.role === 'system')
          .map((m) => joinText(m.content))
          .join('\n'),
        prompt: messages
          .filter((m) => m.role === 'user')
          .map((m) => joinText(m.content))
          .join('\n'),
        maxOutputTokens: options.num_predict ?? null,
      };
    },
    success(call, text, _value, usage) {
      return {
        model: call.model,
        created_at: new Date().toISOString(),
        message: { role: 'assistant', content: text },
        done: true,
        done_reason: 'stop',
        total_duration: 1_000_000,
        load_duration: 100_000,
        prompt_eval_count: usage.inputTokens,
        prompt_eval_duration: 100_000,
        eval_count: usage.outputTokens,
        eval_duration: 500_000,
      };
    },
    error: (_status, message) => ({ error: message }),
    extra(method, path, body, send) {
      if (method === 'GET' && path === '/api/tags') {
        send(200, { models: [] });
        return true;
      }
      if (method === 'POST' && path === '/api/embed') {
        const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input ?? '')];
        send(200, {
          model: body.model,
          embeddings: input.map(vectorFor),
          total_duration: 1_000_000,
          load_duration: 100_000,
          prompt_eval_count: input.length,
        });
        return true;
      }
      return false;
    },
  };
}

export const startFakeOllamaChat = (opts: { apiKey?: string } = {}): Promise<FakeAiServer> =>
  startFakeAiServer(ollamaChatAdapter(opts.apiKey !== undefined), opts);
