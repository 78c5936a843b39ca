import type { LanguageModel } from 'ai';
import { AI_PROVIDERS, type AiProviderName, type Config } from '../config/schema.js';

export { AI_PROVIDERS, type AiProviderName };

/** Detection order (spec): the first provider with a key (Ollama: a host) is the default. */
export const DETECTION_ORDER: readonly AiProviderName[] = AI_PROVIDERS;

export const isProviderName = (v: unknown): v is AiProviderName => typeof v === 'string' && (AI_PROVIDERS as readonly string[]).includes(v);

/** Environment view of one provider: key, base URL, default model. */
export function envProvider(config: Config, p: AiProviderName): { apiKey?: string; baseUrl: string; model: string } {
  switch (p) {
    case 'openai':
      return {
        ...(config.OPENAI_API_KEY ? { apiKey: config.OPENAI_API_KEY } : {}),
        baseUrl: config.OPENAI_BASE_URL,
        model: config.OPENAI_MODEL,
      };
    case 'anthropic':
      return {
        ...(config.ANTHROPIC_API_KEY ? { apiKey: config.ANTHROPIC_API_KEY } : {}),
        baseUrl: config.ANTHROPIC_BASE_URL,
        model: config.ANTHROPIC_MODEL,
      };
    case 'gemini':
      return {
        ...(config.GEMINI_API_KEY ? { apiKey: config.GEMINI_API_KEY } : {}),
        baseUrl: config.GEMINI_BASE_URL,
        model: config.GEMINI_MODEL,
      };
    case 'ollama':
      return {
        ...(config.OLLAMA_API_KEY ? { apiKey: config.OLLAMA_API_KEY } : {}),
        baseUrl: config.OLLAMA_HOST ?? '',
        model: config.OLLAMA_MODEL,
      };
  }
}

/**
 * The API version path each client expects at the end of its base URL, added when the setting omits it
 * (`http://localhost:11434` for Ollama, `https://api.openai.com` for OpenAI). OpenAI-compatible servers
 * are often mounted under a path of their own (`http://host/openai/v1`, `http://host/proxy/openai`), so
 * OpenAI gets `/v1` only when the URL has no path at all.
 */
const VERSION_SUFFIX: Record<Exclude<AiProviderName, 'openai'>, RegExp> = {
  anthropic: /\/v1$/,
  gemini: /\/v1(beta)?$/,
  ollama: /\/api$/,
};
const SUFFIX: Record<AiProviderName, string> = { openai: '/v1', anthropic: '/v1', gemini: '/v1beta', ollama: '/api' };

export function clientBaseUrl(p: AiProviderName, baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  if (p === 'openai') return hasNoPath(trimmed) ? `${trimmed}${SUFFIX.openai}` : trimmed;
  return VERSION_SUFFIX[p].test(trimmed) ? trimmed : `${trimmed}${SUFFIX[p]}`;
}

/** True for `http://host:port` (trailing slashes already trimmed): the path is empty. */
function hasNoPath(url: string): boolean {
  try {
    const u = new URL(url);
    return u.pathname === '/' && !u.search && !u.hash;
  } catch {
    return false;
  }
}

export interface ModelSpec {
  provider: AiProviderName;
  model: string;
  apiKey?: string;
  baseUrl: string;
  /** OpenAI only: the Responses API (default) or Chat Completions. */
  openaiApi?: 'responses' | 'chat';
}

/**
 * The fetch of every provider client: a redirect is answered, not followed. Anthropic's and Gemini's
 * clients send the key in headers of their own (`x-api-key`, `x-goog-api-key`), which fetch carries to
 * whatever origin a Location names (it drops only `authorization` across origins), so a 3xx from the
 * configured host delivered the key elsewhere. The 3xx is the call's answer: an HTTP error that fails
 * at once, as a 4xx does.
 */
export const providerFetch: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'manual' });

/**
 * The Vercel AI SDK model for a provider. Every client gets its base URL from settings, so tests point
 * them at the fake servers in packages/testkit; retries are ours (generate.ts), so the SDK's are off.
 * The client libraries load on first use, so processes that never call a provider start faster.
 */
export async function languageModel(spec: ModelSpec): Promise<LanguageModel> {
  const baseURL = clientBaseUrl(spec.provider, spec.baseUrl);
  switch (spec.provider) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      const openai = createOpenAI({ apiKey: spec.apiKey ?? '', baseURL, fetch: providerFetch });
      return spec.openaiApi === 'chat' ? openai.chat(spec.model) : openai.responses(spec.model);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: spec.apiKey ?? '', baseURL, fetch: providerFetch })(spec.model);
    }
    case 'gemini': {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI({ apiKey: spec.apiKey ?? '', baseURL, fetch: providerFetch })(spec.model);
    }
    case 'ollama': {
      const { createOllama } = await import('ollama-ai-provider-v2');
      return createOllama({
        baseURL,
        fetch: providerFetch,
        ...(spec.apiKey ? { headers: { authorization: `Bearer ${spec.apiKey}` } } : {}),
      })(spec.model);
    }
  }
}
