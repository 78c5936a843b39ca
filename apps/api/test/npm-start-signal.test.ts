import { execFileSync, spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { cloneDatabase, REPO_ROOT, TEST_ENV } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * `npm start` as an operator or a process manager runs it: SIGTERM goes to the npm process, and
 * everything it started (the shell, the node server) must be gone within 10 s, the port closed.
 * npm forwards the signal to its child only; a shell or a tsx wrapper in between used to swallow it
 * and leave the server running.
 */
let db: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
});
afterAll(async () => {
  await db.drop();
});

/** Every process below `pid`, found through ps (children first listed, then theirs). */
function descendants(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const pairs = out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of pairs) {
      if (parent === p) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start and SIGTERM', () => {
  it('stops the whole process tree within 10 s when npm gets SIGTERM', async () => {
    const npm = spawn('npm', ['start'], {
      cwd: REPO_ROOT,
      env: {
        // The node the tests run on first, as npm itself puts node_modules/.bin first.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '/tmp',
        ...TEST_ENV,
        LOG_LEVEL: 'info',
        DATABASE_URL: db.url,
        PORT: '0',
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const port = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not listen; output:\n${out.slice(-3000)}`)), 170_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      };
      npm.stdout.on('data', onData);
      npm.stderr.on('data', onData);
      npm.on('exit', (code) => reject(new Error(`npm start exited (${code}); output:\n${out.slice(-3000)}`)));
    });
    const tree = descendants(npm.pid as number);
    expect(tree.length).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);

    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    npm.kill('SIGTERM');
    await exited;
    // npm is gone; its children must be too, within the same 10 s.
    while (tree.some(alive) && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 100));
    const left = tree.filter(alive);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  }, 200_000);
});
