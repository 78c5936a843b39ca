import { basename } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that start processes or an embedded database run for 20-100 s each; the rest take
 * seconds. Vitest orders a run without its results cache (a fresh clone, CI) by file size, which put
 * these short files late and left the run waiting on them alone at its end. Started first, they
 * overlap the many short files instead. Longest first, by their idle durations (2026-11-23).
 */
const SLOW_FIRST = [
  'process.test.ts',
  'dist-build.test.ts',
  'conf-end-to-end.test.ts',
  'embedded-concurrency.test.ts',
  'npm-start-signal.test.ts',
  'embedded-session.test.ts',
  'conf-kill-retry.test.ts',
  'shutdown.test.ts',
  'search-cache-processes.test.ts',
  'route-access.test.ts',
  'rate-limit-processes.test.ts',
  'test-server-provision.test.ts',
  'fuzz.test.ts',
  'enqueue-in-transaction.test.ts',
];

const rank = (spec: TestSpecification) => {
  const i = SLOW_FIRST.indexOf(basename(spec.moduleId));
  return i === -1 ? SLOW_FIRST.length : i;
};

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    // Array.prototype.sort is stable: the others keep the base order (failed, then longest known).
    return rest.sort((a, b) => rank(a) - rank(b));
  }
}
