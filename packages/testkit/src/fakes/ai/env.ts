import type { FakeAiProvider, FakeAiServer } from './server.js';

/** The settings that point the app's client for `provider` at `fake` (key and base URL; Ollama has no key). */
export function fakeProviderEnv(provider: FakeAiProvider, fake: Pick<FakeAiServer, 'apiKey' | 'baseUrl'>): Record<string, string> {
  if (provider === 'openai') return { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.baseUrl };
  if (provider === 'anthropic') return { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseUrl };
  if (provider === 'gemini') return { GEMINI_API_KEY: fake.apiKey, GEMINI_BASE_URL: fake.baseUrl };
  return { OLLAMA_HOST: fake.baseUrl };
}

/**
 * `fakeProviderEnv` for tests that call the fake often: one retry 1 ms after a failure, and a timeout
 * long enough for a loaded machine (the first call also loads the provider SDK) unless a test hangs
 * the fake on purpose and wants it shorter.
 */
export function quickAiEnv(fake: Pick<FakeAiServer, 'apiKey' | 'baseUrl'>, timeoutMs = 15_000, provider: FakeAiProvider = 'openai') {
  return { ...fakeProviderEnv(provider, fake), AI_RETRY_BASE_MS: '1', AI_TIMEOUT_MS: String(timeoutMs), AI_MAX_RETRIES: '1' };
}
