/**
 * What every benchmark shares: its numeric settings checked before anything runs, and a failure it
 * cannot recover from reported in one line. A benchmark runs for minutes; `BENCH_ROWS=abc` printed
 * NaN and crashed later with a TypeError, and a database server that was not running gave a raw
 * ECONNREFUSED stack.
 *
 * Importing this module is enough for the second part: an error nobody caught (a rejected top-level
 * await included) goes through `benchFailed`.
 */

/** Network errors that mean the server a benchmark connects to is not there (nothing to retry). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ETIMEDOUT']);

/** Stops the benchmark with one line on stderr, exit code 1. */
function stop(line: string): never {
  console.error(line);
  process.exit(1);
}

/**
 * A whole-number setting from the environment: unset or empty gives `fallback`; anything but decimal
 * digits, or below `min` (1 unless the setting can be zero), stops the benchmark naming it.
 */
export function benchInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    stop(`Invalid setting ${name}: must be a whole number of at least ${min} (value: ${JSON.stringify(raw)})`);
  }
  return value;
}

/**
 * Why a benchmark could not reach its database, in one line (host and port, never the URL: it may
 * hold a password), or null for any other error.
 */
export function unreachableLine(err: unknown): string | null {
  const e = err as { code?: unknown; address?: unknown; port?: unknown; errors?: unknown[] } | null;
  // A host name with IPv4 and IPv6 addresses fails as an AggregateError of one error per address.
  const first = (Array.isArray(e?.errors) ? e.errors[0] : e) as typeof e;
  const code = typeof e?.code === 'string' ? e.code : first?.code;
  if (typeof code !== 'string' || !UNREACHABLE.has(code)) return null;
  const where = typeof first?.address === 'string' ? ` ${first.address}${first.port ? `:${first.port}` : ''}` : '';
  return `cannot reach the database server (${code}${where}): start PostgreSQL, or point BENCH_SERVER_URL at it`;
}

/** The end of a benchmark that failed: one line for an unreachable database, the error and its stack otherwise. */
export function benchFailed(err: unknown): never {
  const line = unreachableLine(err);
  if (line) stop(line);
  console.error(err);
  process.exit(1);
}

process.on('uncaughtException', benchFailed);
process.on('unhandledRejection', benchFailed);
