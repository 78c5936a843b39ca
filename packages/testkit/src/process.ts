import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first output line matching, or rejects after the timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends the signal and resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/** Node's arguments that load our TypeScript sources the way the npm scripts do (see package.json). */
export const TS_ENTRY_ARGS = ['--import', 'tsx', '--import', './packages/db/drizzle-resolve-hook.mjs'];

/** Runs a TypeScript entry file of this repository as its own process, the way npm scripts do. */
export function spawnEntry(file: string, env: Record<string, string>): Spawned {
  return spawnNode([...TS_ENTRY_ARGS, file], env);
}

/** Runs node (this test run's version) with the given arguments in the repository root. */
export function spawnNode(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of [...waiters]) {
      const m = out.match(w.pattern);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 60_000) {
      const m = out.match(pattern);
      if (m) return Promise.resolve(m);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${out.slice(-3000)}`)), timeoutMs);
        exited.then((code) => reject(new Error(`process exited (${code}) before ${pattern}; output:\n${out.slice(-3000)}`)));
        waiters.push({
          pattern,
          resolve: (mm) => {
            clearTimeout(timer);
            resolve(mm);
          },
        });
      });
    },
    async stop(signal = 'SIGTERM') {
      const started = Date.now();
      if (child.exitCode === null) child.kill(signal);
      const code = await exited;
      return { code, ms: Date.now() - started };
    },
  };
}

const LISTENING = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;

/** API processes started from source on one database; `bases` are their `/api` URLs, in start order. */
export interface ApiProcesses {
  bases: string[];
  processes: Spawned[];
  /** SIGTERM to each (SIGKILL for one that does not exit). */
  stop(): Promise<void>;
}

/** Starts `count` API processes with the given environment on ephemeral loopback ports. */
export async function startApis(count: number, env: Record<string, string>, timeoutMs = 170_000): Promise<ApiProcesses> {
  const processes = Array.from({ length: count }, () => spawnEntry('apps/api/src/main.ts', { ...env, PORT: '0', HOST: '127.0.0.1' }));
  const stop = async () => {
    for (const p of processes) {
      await p.stop('SIGTERM');
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  };
  try {
    const ports = await Promise.all(processes.map(async (p) => (await p.waitFor(LISTENING, timeoutMs))[1]));
    return { bases: ports.map((port) => `http://127.0.0.1:${port}/api`), processes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
