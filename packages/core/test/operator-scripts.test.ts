import { spawnSync } from 'node:child_process';
import { REPO_ROOT, TS_ENTRY_ARGS } from '@cfaq/testkit';
import { describe, expect, it } from 'vitest';

/** Runs a script as its npm script does (tsx), with only PATH and HOME of this environment plus `env`. */
function run(file: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [...TS_ENTRY_ARGS, file, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr.trim() };
}

/** One line on stderr, no stack: what an operator can act on. */
function expectOneLine(stderr: string, line: string | RegExp) {
  expect(stderr.split('\n'), stderr).toHaveLength(1);
  if (typeof line === 'string') expect(stderr).toBe(line);
  else expect(stderr).toMatch(line);
}

describe('operator scripts stop with one line', () => {
  it('npm run embeddings:backfill -- --batch abc', () => {
    const r = run('scripts/embeddings-backfill.ts', ['--batch', 'abc']);
    expect(r.status).toBe(1);
    expectOneLine(r.stderr, '--batch must be a whole number from 1 to 1000 (got "abc")');
  }, 60_000);

  it('a benchmark with a numeric setting that is not a positive whole number names it', () => {
    const r = run('bench/search/run.ts', [], { BENCH_ROWS: 'abc' });
    expect(r.status).toBe(1);
    expectOneLine(r.stderr, 'Invalid setting BENCH_ROWS: must be a whole number of at least 1 (value: "abc")');
    // Every benchmark reads its numbers through the same benchInt (bench/shared.ts): one spawn shows it
    // (each costs the suite seconds of CPU loading the benchmark).
  }, 60_000);

  it('a benchmark whose database server refuses the connection says so, without a stack', () => {
    const r = run('bench/conf/run.ts', [], { BENCH_SERVER_URL: 'postgres://postgres:secret-pass@127.0.0.1:1/postgres' });
    expect(r.status).toBe(1);
    expectOneLine(r.stderr, /^cannot reach the database server \(ECONNREFUSED 127\.0\.0\.1:1\): .*BENCH_SERVER_URL/);
    expect(r.stderr).not.toContain('secret-pass');
  }, 60_000);
});
