import { type FakeAiServer, joinText, type ProviderAdapter, startFakeAiServer } from './server.js';

type Content = { role?: string; parts?: { text?: string }[] };

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * Gemini: POST /{v1|v1beta}/models/{model}:generateContent with `x-goog-api-key` (or `?key=`);
 * `generationConfig.responseMimeType` + `responseJsonSchema` (or `responseSchema`); reply
 * `candidates[0].content.parts[0].text`, `finishReason`, `usageMetadata`. Errors
 * `{ error: { code, message, status } }`. GEMINI_BASE_URL: the server URL.
 */
export const geminiAdapter: ProviderAdapter = {
  provider: 'gemini',
  basePath: '',
  authorized: (req, key) => req.headers['x-goog-api-key'] === key || new URL(req.url ?? '/', 'http://x').searchParams.get('key') === key,
  parse(method, path, body) {
    const m = /^\/(v1|v1beta)\/models\/([^/:]+):generateContent$/.exec(path);
    if (method !== 'POST' || !m) return null;
    const gc = (body.generationConfig ?? {}) as {
      responseJsonSchema?: Record<string, unknown>;
      responseSchema?: Record<string, unknown>;
      maxOutputTokens?: number;
    };
    const contents = (body.contents ?? []) as Content[];
    return {
      api: m[1] as string,
      model: decodeURIComponent(m[2] as string),
      schema: gc.responseJsonSchema ?? gc.responseSchema ?? null,
      system: joinText((body.systemInstruction as Content | undefined)?.parts ?? []),
      prompt: contents
        .filter((c) => c.role !== 'model')
        .map((c) => joinText(c.parts ?? []))
        .join('\n'),
      maxOutputTokens: gc.maxOutputTokens ?? null,
    };
  },
  success(call, text, _value, usage) {
    return {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: usage.inputTokens,
        candidatesTokenCount: usage.outputTokens,
        totalTokenCount: usage.inputTokens + usage.outputTokens,
      },
      modelVersion: call.model,
      responseId: `fake-${Date.now()}`,
    };
  },
  error: (status, message) => ({ error: { code: status, message, status: STATUS[status] ?? 'UNKNOWN' } }),
};

export const startFakeGemini = (opts: { apiKey?: string } = {}): Promise<FakeAiServer> => startFakeAiServer(geminiAdapter, opts);
