import { randomUUID } from 'node:crypto';
import { type FakeAiServer, joinText, type ProviderAdapter, startFakeAiServer } from './server.js';

type Msg = { role?: string; content?: unknown };

/**
 * OpenAI: POST /v1/chat/completions (`response_format.json_schema.schema`; reply `choices[0].message.content`,
 * `finish_reason`, `usage.prompt_tokens/completion_tokens`) and POST /v1/responses (`text.format.schema`;
 * reply `object: "response"`, `output[0].content[0]` output_text, `usage.input_tokens/output_tokens`).
 * Bearer auth; errors `{ error: { message, type, code } }`. Base URL for OPENAI_BASE_URL: `<url>/v1`.
 */
export const openaiAdapter: ProviderAdapter = {
  provider: 'openai',
  basePath: '/v1',
  authorized: (req, key) => req.headers.authorization === `Bearer ${key}`,
  parse(method, path, body) {
    if (method !== 'POST') return null;
    if (path === '/v1/chat/completions') {
      const messages = (body.messages ?? []) as Msg[];
      const rf = body.response_format as { type?: string; json_schema?: { schema?: Record<string, unknown> } } | undefined;
      return {
        api: 'chat',
        model: String(body.model ?? ''),
        schema: rf?.json_schema?.schema ?? null,
        system: messages
          .filter((m) => m.role === 'system' || m.role === 'developer')
          .map((m) => joinText(m.content))
          .join('\n'),
        prompt: messages
          .filter((m) => m.role === 'user')
          .map((m) => joinText(m.content))
          .join('\n'),
        maxOutputTokens: (body.max_completion_tokens ?? body.max_tokens ?? null) as number | null,
      };
    }
    if (path === '/v1/responses') {
      const input = (typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? [])) as Msg[];
      const fmt = (body.text as { format?: { schema?: Record<string, unknown> } } | undefined)?.format;
      return {
        api: 'responses',
        model: String(body.model ?? ''),
        schema: fmt?.schema ?? null,
        system: [
          typeof body.instructions === 'string' ? body.instructions : '',
          ...input.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => joinText(m.content)),
        ]
          .filter(Boolean)
          .join('\n'),
        prompt: input
          .filter((m) => m.role === 'user')
          .map((m) => joinText(m.content))
          .join('\n'),
        maxOutputTokens: (body.max_output_tokens ?? null) as number | null,
      };
    }
    return null;
  },
  success(call, text, _value, usage) {
    const created = Math.floor(Date.now() / 1000);
    if (call.api === 'chat')
      return {
        id: `chatcmpl-${randomUUID()}`,
        object: 'chat.completion',
        created,
        model: call.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
        },
      };
    return {
      id: `resp_${randomUUID().replaceAll('-', '')}`,
      object: 'response',
      created_at: created,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: call.model,
      output: [
        {
          type: 'message',
          id: `msg_${randomUUID().replaceAll('-', '')}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ],
      usage: {
        input_tokens: usage.inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.inputTokens + usage.outputTokens,
      },
    };
  },
  error: (status, message) => ({
    error: {
      message,
      type:
        status === 429
          ? 'rate_limit_exceeded'
          : status === 401
            ? 'invalid_request_error'
            : status >= 500
              ? 'server_error'
              : 'invalid_request_error',
      param: null,
      code: status === 401 ? 'invalid_api_key' : null,
    },
  }),
};

export const startFakeOpenAI = (opts: { apiKey?: string } = {}): Promise<FakeAiServer> => startFakeAiServer(openaiAdapter, opts);
