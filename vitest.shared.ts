import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

const globalSetup = fileURLToPath(new URL('./packages/testkit/src/global-setup.ts', import.meta.url));

/** Settings every project shares: real PostgreSQL via the testkit's template database. */
export function project(name: string) {
  return defineProject({
    test: {
      name,
      include: ['test/**/*.test.ts'],
      globalSetup: [globalSetup],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      restoreMocks: true,
    },
  });
}
