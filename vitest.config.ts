import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The npm scripts' startup fix (packages/db/drizzle-resolve-hook.mjs): about 1 s of CPU less per test
// file. Pool options that start processes are only read here, not per project.
const drizzleResolveHook = fileURLToPath(new URL('./packages/db/drizzle-resolve-hook.mjs', import.meta.url));

/** A test that starts processes of its own (a real `npm start`, a worker killed mid-job, a build). */
const STARTS_PROCESSES = /\bspawnEntry\b|node:child_process/;

/**
 * Process tests first. Without cached durations (a clean clone, as CI runs) vitest starts the largest
 * files first, and the process tests, small files that run 15-40 s each, came last: one of them
 * alone on a core at the end. With durations cached, vitest's own longest-first order is kept.
 */
class ProcessTestsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const starts = new Map(sorted.map((f) => [f, STARTS_PROCESSES.test(readFileSync(f.moduleId, 'utf8'))]));
    return [...sorted.filter((f) => starts.get(f)), ...sorted.filter((f) => !starts.get(f))];
  }
}

export default defineConfig({
  test: {
    // IO-bound integration tests: more forks than cores keeps PostgreSQL busy.
    poolOptions: { forks: { maxForks: 4, minForks: 1, execArgv: ['--import', drizzleResolveHook] } },
    passWithNoTests: false,
    sequence: { sequencer: ProcessTestsFirst },
  },
});
