import { ConfigError } from '../config/load.js';
import { pgErrorOf } from '../shared/db.js';
import { type ProcessRole, type Runtime, startRuntime } from './bootstrap.js';
import { serializeError } from './redact.js';

/**
 * What a started process gives back: how to stop what it serves, before the runtime closes, by
 * `deadline` (epoch ms) so the runtime still has its share of the stop's time.
 */
export type Serve = (runtime: Runtime) => Promise<(deadline: number) => Promise<void>>;

const FORCE_EXIT_MS = 10_000;
/**
 * The whole stop's budget: serving, then pg-boss, the pool and the embedded database share it, each
 * given what is left (they waited 8 s each in turn, past the forced exit). Inside FORCE_EXIT_MS.
 */
const STOP_BUDGET_MS = 9_000;
const OWNER_GONE_EXIT_MS = 1_000;

/**
 * The body of every start file: read `.env`, start the runtime, serve, and on SIGTERM/SIGINT stop
 * serving, close the runtime and exit 0 (forced exit 1 after 10 s). A bad setting exits 1 with a
 * message naming it. A process joined to another's embedded database exits 1 when that one stops.
 */
export function runMain(role: ProcessRole, serve: Serve): void {
  try {
    process.loadEnvFile();
  } catch {
    /* no .env file */
  }
  const main = async () => {
    const runtime = await startRuntime({ role });
    let stopServing: ((deadline: number) => Promise<void>) | null = null;
    let stopping = false;
    const stop = async (signal: string, exitCode = 0) => {
      if (stopping) return;
      stopping = true;
      runtime.log.info({ signal, role }, `${role} stopping`);
      setTimeout(() => process.exit(1), FORCE_EXIT_MS).unref();
      const deadline = Date.now() + STOP_BUDGET_MS;
      try {
        await stopServing?.(deadline);
        await runtime.close(deadline);
        runtime.log.info({ role }, `${role} stopped`);
        process.exit(exitCode);
      } catch (err) {
        runtime.log.error({ err }, 'shutdown failed');
        process.exit(1);
      }
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
    // Joined to another process's embedded database: when that process goes, so does the database.
    // Serving on would answer every request 503/500 for good; exit 1 instead, so a supervisor (or the
    // person at the terminal) starts this process again, as the owner or joining the new one.
    void runtime.embedded?.ownerGone.then(() => {
      runtime.log.error({ role }, 'the process that owns the embedded database stopped; exiting');
      // Nothing in flight can finish without the database: a second for the stop to log, not the 10 s
      // a worker gives in-flight jobs.
      setTimeout(() => process.exit(1), OWNER_GONE_EXIT_MS).unref();
      void stop('owner-gone', 1);
    });
    stopServing = await serve(runtime);
    // The embedding model loads once per process (the sentence encoder: about a second of CPU). Loaded
    // now, once serving, the first search (API) or embedding job (worker) does not wait for it; an
    // embedder that cannot load yet (Ollama down) loads on first use, as before.
    runtime.ctx.embedder.warm().then(
      ({ model, ms }) => runtime.log.info({ role, model, ms: Math.round(ms) }, 'embedder ready'),
      (err: unknown) => runtime.log.warn({ role, err }, 'embedder not ready; it loads on first use'),
    );
  };
  main().catch((err) => {
    if (err instanceof ConfigError) console.error(err.message);
    // The runtime reads DATABASE_URL from this environment (.env loaded above); unset, it is the embedded database.
    else console.error(startFailure(role, err, { databaseUrlSet: Boolean(process.env.DATABASE_URL?.trim()) }));
    process.exit(1);
  });
}

/**
 * Why a process could not start, for the operator: a database without its tables names the command
 * that creates them; anything else shows its error and stack without the statement's parameters (a
 * failed query's message lists them: an email, a password hash).
 */
export function startFailure(role: string, err: unknown, opts: { databaseUrlSet?: boolean } = {}): string {
  if (pgErrorOf(err)?.code === '42P01') {
    return `${role} failed to start: the database has no tables yet. Run \`npm run db:migrate\` against it, or start with MIGRATE_ON_START=true.`;
  }
  const reach = databaseUnreachable(err);
  if (reach) {
    const setting = opts.databaseUrlSet === false ? 'the embedded database (DATA_DIR)' : 'Invalid setting DATABASE_URL';
    return `${role} failed to start: ${setting}: ${reach}`;
  }
  if (!(err instanceof Error)) return `${role} failed to start: ${String(err)}`;
  const shown = serializeError(err) as { message?: string; stack?: string };
  const cause = err.cause instanceof Error ? (serializeError(err.cause) as { message?: string }).message : undefined;
  return `${role} failed to start: ${shown.stack ?? shown.message}${cause ? `\ncaused by: ${cause}` : ''}`;
}

/**
 * TLS failures of the connection to the server (Node's certificate and handshake codes): the URL asks
 * for TLS (`sslmode=require`, `verify-full`, ...) that this server cannot give or prove.
 */
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

/**
 * The database DATABASE_URL names cannot be used at all: nothing listens there, the host is unknown,
 * the database does not exist, the server refuses the user, or the TLS its `sslmode` asks for cannot
 * be set up. One line naming the setting (the URL itself is not shown: it may hold a password).
 */
function databaseUnreachable(err: unknown): string | null {
  const code = pgErrorOf(err)?.code ?? (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  // node-postgres raises these without a code when the server answers the SSL request with no (or garbage).
  if (/^The server does not support SSL connections$|^There was an error establishing an SSL connection$/.test(message)) {
    return `${message[0]?.toLowerCase()}${message.slice(1)}: enable SSL on the server, or drop sslmode from the URL (sslmode=disable)`;
  }
  if (typeof code === 'string' && TLS_CODES.test(code)) {
    return `the TLS connection to the server failed (${code}: ${message}); check sslmode and the server's certificate`;
  }
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
      return `cannot reach the database server (${code})`;
    case '3D000':
      return `the database does not exist (${message})`;
    case '28P01':
    case '28000':
      return `the server refused the user (${message})`;
    default:
      return null;
  }
}
