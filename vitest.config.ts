import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './vitest.sequencer.js';

export default defineConfig({
  test: {
    // IO-bound integration tests: more forks than cores keeps PostgreSQL busy.
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    passWithNoTests: false,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
