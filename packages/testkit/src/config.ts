import { type Config, loadConfig } from '@cfaq/core';

/** Fixed test secrets: never used outside tests. */
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
  ENCRYPTION_KEY: '0123456789abcdef'.repeat(4),
  ADMIN_EMAIL: 'admin@example.test',
  ADMIN_PASSWORD: 'admin-password-for-tests',
  MIGRATE_ON_START: 'false',
  // argon2id at its smallest cost: the suite signs in thousands of times; production refuses these values.
  PASSWORD_HASH_MEMORY_KIB: '1024',
  PASSWORD_HASH_ITERATIONS: '1',
  PASSWORD_HASH_PARALLELISM: '1',
  // The lexical + GloVe embedder: loading the sentence encoder costs each test process 1.1 s of CPU and
  // 120 MB. The sentence embedder (the product's default) is tested where it matters: the embeddings,
  // sentence-kernels, duplicate-check and search-relevance tests, and the embedded `npm start` of
  // embedded-start.test.ts.
  EMBEDDER: 'local',
};

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({ ...TEST_ENV, ...overrides });
}
