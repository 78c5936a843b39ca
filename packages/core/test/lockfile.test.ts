import { readFileSync } from 'node:fs';
import { REPO_ROOT } from '@cfaq/testkit';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` refuses a lock file that lacks any dependency the tree asks for, optional platform binaries
 * of other systems included ("Missing: @biomejs/cli-darwin-x64@ from lock file"). `npm install`
 * against a registry without those binaries leaves them out, so this checks the lock the way npm ci
 * does for them: every optional dependency of every locked package has an entry of its own.
 */
describe('package-lock.json', () => {
  it('lists every optional dependency of every locked package (npm ci works)', () => {
    const lock = JSON.parse(readFileSync(`${REPO_ROOT}package-lock.json`, 'utf8')) as {
      packages: Record<string, { optionalDependencies?: Record<string, string> }>;
    };
    const missing: string[] = [];
    for (const [path, meta] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(meta.optionalDependencies ?? {})) {
        const nested = `${path ? `${path}/` : ''}node_modules/${dep}`;
        if (!lock.packages[nested] && !lock.packages[`node_modules/${dep}`]) missing.push(`${dep} (for ${path || 'the root'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
