import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { resolveServerUrl } from './database.js';
import { REPO_ROOT } from './process.js';

export interface TestServer {
  url: string;
  stop?: () => Promise<void>;
}

/** What the test run needs from the machine, and what it may do about a gap. */
export interface ProvisionDeps {
  /** The server the tests would use (TEST_DATABASE_URL, the local one, or a container); throws when none. */
  resolve(): Promise<TestServer>;
  /** Whether that server can install pgvector. */
  hasVector(url: string): Promise<boolean>;
  /** Whether this machine may be provisioned by the setup script (root on Debian, no TEST_DATABASE_URL). */
  canProvision(): boolean;
  /** Runs `npm run db:setup` (scripts/setup-postgres.sh); true when it succeeded. */
  runSetup(): boolean;
  log(line: string): void;
}

export const SETUP_HINT = 'run `npm run db:setup` (as root on Debian), or set TEST_DATABASE_URL to a PostgreSQL with pgvector';

/** A gap the run cannot close itself: its message is the one line `npm test` prints. */
export class TestServerUnavailable extends Error {}

/**
 * The test server, provisioned if need be: with no PostgreSQL reachable or one without pgvector, a
 * root on Debian runs the setup script once and tries again; anywhere else the run stops at once with
 * one line naming the command (a fresh clone's `npm install && npm test` failed deep inside a
 * migration: "extension vector is not available").
 */
export async function prepareTestServer(deps: ProvisionDeps): Promise<TestServer> {
  let gap = await findGap(deps);
  if (typeof gap === 'string' && deps.canProvision()) {
    deps.log(`[test setup] ${gap}: provisioning with \`npm run db:setup\` (scripts/setup-postgres.sh)`);
    if (deps.runSetup()) gap = await findGap(deps);
  }
  if (typeof gap === 'string') throw new TestServerUnavailable(`No usable PostgreSQL for the tests (${gap}): ${SETUP_HINT}.`);
  return gap;
}

async function findGap(deps: ProvisionDeps): Promise<TestServer | string> {
  let server: TestServer;
  try {
    server = await deps.resolve();
  } catch {
    return 'none reachable';
  }
  let vector: boolean;
  try {
    vector = await deps.hasVector(server.url);
  } catch {
    await server.stop?.();
    return `none reachable at ${hostPort(server.url)}`;
  }
  if (vector) return server;
  await server.stop?.();
  return `the server at ${hostPort(server.url)} lacks the pgvector extension`;
}

const hostPort = (url: string) => {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}`;
};

async function serverHasVector(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_available_extensions where name = 'vector'");
    return (rowCount ?? 0) > 0;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The real machine. */
export const machineDeps: ProvisionDeps = {
  resolve: resolveServerUrl,
  hasVector: serverHasVector,
  canProvision: () => !process.env.TEST_DATABASE_URL && process.getuid?.() === 0 && existsSync('/etc/debian_version'),
  runSetup: () => spawnSync('bash', ['scripts/setup-postgres.sh'], { cwd: REPO_ROOT, stdio: 'inherit' }).status === 0,
  log: (line) => process.stderr.write(`${line}\n`),
};
