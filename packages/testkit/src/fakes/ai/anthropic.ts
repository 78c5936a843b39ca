import { randomUUID } from 'node:crypto';
import { type FakeAiServer, joinText, type ProviderAdapter, startFakeAiServer } from './server.js';

type Msg = { role?: string; content?: unknown };
type Tool = { name?: string; input_schema?: Record<string, unknown> };

/**
 * Anthropic: POST /v1/messages with `x-api-key` (or bearer) and `anthropic-version`; structured output
 * through `output_config.format` (reply: a text block holding the JSON) or a forced tool (reply: a
 * `tool_use` block whose `input` is the object); `stop_reason`, `usage.input_tokens/output_tokens`.
 * Errors `{ type: "error", error: { type, message } }`. ANTHROPIC_BASE_URL: the server URL.
 */
export const anthropicAdapter: ProviderAdapter = {
  provider: 'anthropic',
  basePath: '',
  authorized: (req, key) =>
    typeof req.headers['anthropic-version'] === 'string' &&
    (req.headers['x-api-key'] === key || req.headers.authorization === `Bearer ${key}`),
  parse(method, path, body) {
    if (method !== 'POST' || path !== '/v1/messages') return null;
    const messages = (body.messages ?? []) as Msg[];
    const format = (body.output_config as { format?: { schema?: Record<string, unknown> } } | undefined)?.format;
    const choice = body.tool_choice as { type?: string; name?: string } | undefined;
    const forced = choice?.type === 'tool' ? ((body.tools ?? []) as Tool[]).find((t) => t.name === choice.name) : undefined;
    return {
      api: forced ? `tool:${forced.name}` : 'output_format',
      model: String(body.model ?? ''),
      schema: format?.schema ?? forced?.input_schema ?? null,
      system: joinText(body.system),
      prompt: messages
        .filter((m) => m.role === 'user')
        .map((m) => joinText(m.content))
        .join('\n'),
      maxOutputTokens: (body.max_tokens ?? null) as number | null,
    };
  },
  success(call, text, value, usage) {
    const toolName = call.api.startsWith('tool:') ? call.api.slice(5) : null;
    const useTool = toolName && value && typeof value === 'object';
    return {
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      type: 'message',
      role: 'assistant',
      model: call.model,
      content: useTool
        ? [{ type: 'tool_use', id: `toolu_${randomUUID().replaceAll('-', '')}`, name: toolName, input: value }]
        : [{ type: 'text', text }],
      stop_reason: useTool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
    };
  },
  error: (status, message) => ({
    type: 'error',
    error: {
      type:
        status === 429
          ? 'rate_limit_error'
          : status === 401
            ? 'authentication_error'
            : status === 404
              ? 'not_found_error'
              : status >= 500
                ? 'api_error'
                : 'invalid_request_error',
      message,
    },
  }),
};

export const startFakeAnthropic = (opts: { apiKey?: string } = {}): Promise<FakeAiServer> => startFakeAiServer(anthropicAdapter, opts);
