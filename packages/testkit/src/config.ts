import { type Config, loadConfig } from '@cfaq/core';

/** Fixed test secrets: never used outside tests. */
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
  ENCRYPTION_KEY: '0f'.repeat(32),
  ADMIN_EMAIL: 'admin@example.test',
  ADMIN_PASSWORD: 'admin-password-for-tests',
  MIGRATE_ON_START: 'false',
};

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({ ...TEST_ENV, ...overrides });
}
