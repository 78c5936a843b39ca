import type { FakeAiProvider, FakeAiServer } from './server.js';

/** The settings that point the app's client for `provider` at `fake` (key and base URL; Ollama has no key). */
export function fakeProviderEnv(provider: FakeAiProvider, fake: Pick<FakeAiServer, 'apiKey' | 'baseUrl'>): Record<string, string> {
  if (provider === 'openai') return { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.baseUrl };
  if (provider === 'anthropic') return { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.baseUrl };
  if (provider === 'gemini') return { GEMINI_API_KEY: fake.apiKey, GEMINI_BASE_URL: fake.baseUrl };
  return { OLLAMA_HOST: fake.baseUrl };
}
