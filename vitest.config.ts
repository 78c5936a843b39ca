import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // IO-bound integration tests: more forks than cores keeps PostgreSQL busy.
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    passWithNoTests: false,
  },
});
