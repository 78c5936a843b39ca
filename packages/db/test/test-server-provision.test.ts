import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type ProvisionDeps, prepareTestServer, REPO_ROOT, SETUP_HINT } from '@cfaq/testkit';
import { describe, expect, it } from 'vitest';

/** `npm test` on a fresh machine: provision when it may, else stop at once with one line. */
function fake(state: { reachable: boolean; vector: boolean; root: boolean; setupFixes: boolean }) {
  const calls: string[] = [];
  const deps: ProvisionDeps = {
    resolve: async () => {
      calls.push('resolve');
      if (!state.reachable) throw new Error('No PostgreSQL for tests');
      return { url: 'postgres://postgres@db.example:5433/postgres' };
    },
    hasVector: async () => state.vector,
    canProvision: () => state.root,
    runSetup: () => {
      calls.push('setup');
      if (state.setupFixes) Object.assign(state, { reachable: true, vector: true });
      return state.setupFixes;
    },
    log: (line) => calls.push(`log:${line}`),
  };
  return { deps, calls };
}

describe('test server provisioning', () => {
  it('uses a ready server as it is', async () => {
    const { deps, calls } = fake({ reachable: true, vector: true, root: true, setupFixes: true });
    expect((await prepareTestServer(deps)).url).toContain('db.example');
    expect(calls).toEqual(['resolve']);
  });

  it('as root on Debian, runs the setup script once for a server without pgvector, or none, then goes on', async () => {
    for (const start of [
      { reachable: true, vector: false },
      { reachable: false, vector: false },
    ]) {
      const { deps, calls } = fake({ ...start, root: true, setupFixes: true });
      expect((await prepareTestServer(deps)).url).toContain('db.example');
      expect(calls.filter((c) => c === 'setup')).toHaveLength(1);
      expect(calls.find((c) => c.startsWith('log:'))).toContain('npm run db:setup');
    }
  });

  it('elsewhere, or when the script fails, stops with one line naming the command', async () => {
    for (const state of [
      { reachable: true, vector: false, root: false, setupFixes: false },
      { reachable: false, vector: false, root: false, setupFixes: false },
      { reachable: true, vector: false, root: true, setupFixes: false },
    ]) {
      const { deps } = fake(state);
      const err = await prepareTestServer(deps).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain(SETUP_HINT);
      expect((err as Error).message).not.toContain('\n');
    }
    const { deps } = fake({ reachable: true, vector: false, root: false, setupFixes: false });
    expect(((await prepareTestServer(deps).catch((e: Error) => e)) as Error).message).toContain(
      'the server at db.example:5433 lacks the pgvector extension',
    );
  });

  it('a real run against an unreachable server exits 1 within seconds, printing the one line', () => {
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'core', 'packages/core/test/normalize-query.test.ts'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres', NO_COLOR: '1', CI: '1' },
        encoding: 'utf8',
        timeout: 90_000,
      },
    );
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    const lines = output.split('\n').filter((l) => l.includes('npm run db:setup'));
    expect(lines).toEqual([`No usable PostgreSQL for the tests (none reachable at 127.0.0.1:1): ${SETUP_HINT}.`]);
    expect(output).not.toMatch(/\n\s+at /);
  }, 100_000);
});
