import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The npm scripts' startup fix (packages/db/drizzle-resolve-hook.mjs): about 1 s of CPU less per test
// file. Pool options that start processes are only read here, not per project.
const drizzleResolveHook = fileURLToPath(new URL('./packages/db/drizzle-resolve-hook.mjs', import.meta.url));

export default defineConfig({
  test: {
    // IO-bound integration tests: more forks than cores keeps PostgreSQL busy.
    poolOptions: { forks: { maxForks: 4, minForks: 1, execArgv: ['--import', drizzleResolveHook] } },
    passWithNoTests: false,
  },
});
