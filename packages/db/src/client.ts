import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
export type Db = NodePgDatabase<Schema>;
/** A transaction handed to `db.transaction(async (tx) => ...)`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Where a query can run: the database or an open transaction. */
export type DbOrTx = Db | Tx;

export interface PoolOptions {
  connectionString: string;
  max?: number;
  applicationName?: string;
}

/** How long a query waits for a connection (a new one, or a free one of the pool) before it fails. */
export const POOL_CONNECT_TIMEOUT_MS = 30_000;

/** A pg pool whose connections know the `vector` type (registered once per connection). */
export function createPool(opts: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'community-faq',
    idleTimeoutMillis: 30_000,
    // A server that stops answering (a partition, a hung host) must not hold a request, a health probe
    // or a start-up forever: a connection not made in this time fails, and TCP keepalive finds a
    // connection whose peer vanished. Generous, since the pool's queue counts too under load.
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // Vectors travel as pgvector's text form: drizzle's vector column and `toSql` from the pgvector
  // package both speak it, so no per-connection type registration is needed.
  // An idle client's error (server restart) must not crash the process.
  pool.on('error', () => {});
  // Nor a checked-out one's: pg-pool listens only while a client is idle, and a backend terminated
  // mid-transaction (a restart, a failover, pg_terminate_backend) made the socket's end an unhandled
  // 'error' that took the whole process down. The query itself still fails (503), and the client is
  // discarded when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * The PostgreSQL error inside `err`: the error itself, or the one drizzle wraps (DrizzleQueryError
 * keeps it in `cause`); undefined when there is none. `code` is its SQLSTATE.
 */
export function pgErrorOf(err: unknown): { code: string; constraint?: string } | undefined {
  const e = err as { code?: unknown; constraint?: unknown; cause?: { code?: unknown; constraint?: unknown } } | null;
  const inner = typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e : e?.cause;
  if (typeof inner?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(inner.code)) return undefined;
  return { code: inner.code, ...(typeof inner.constraint === 'string' ? { constraint: inner.constraint } : {}) };
}

/**
 * SQLSTATEs of a database that is not there to answer: connection exceptions, shutdown, no connection
 * slots, and a read-only transaction (a standby after a failover refuses writes until it is promoted).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300|25006)$/;
/** Socket errors of a server that is gone or unreachable. */
const UNAVAILABLE_SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  // The host name no longer resolves: `docker compose stop db` takes the name `db` with it.
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Whether `err` says the database is unavailable (down, restarting, unreachable, out of connections,
 * or the pool could not get a connection in time) rather than that a query was wrong: the request may
 * be retried later, so it is a 503, not a 500.
 */
export function databaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 4; depth++) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_SOCKET.has(code))) return true;
    // A FATAL error ends the session: the server refused or dropped the connection (a database not
    // accepting connections, a shutdown), whatever its SQLSTATE.
    if ((e as { severity?: unknown }).severity === 'FATAL') return true;
    const message = typeof e.message === 'string' ? e.message : '';
    // pg's own wording for a pool wait that timed out and for a connection the server dropped.
    if (/^timeout exceeded when trying to connect|^Connection terminated|connection error and is not queryable/.test(message)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/**
 * SQLSTATEs after which PostgreSQL has rolled the whole transaction back and running it again is the
 * remedy: a deadlock victim (40P01; a user deleted while they refresh a token or comment, each side
 * waiting on a row the other locked) and a serialization failure (40001).
 */
const RETRYABLE = new Set(['40P01', '40001']);
const TRANSACTION_ATTEMPTS = 3;

/**
 * The drizzle database over the pool. Its `transaction` runs the callback again, up to three times in
 * all, when PostgreSQL aborts the transaction as a deadlock victim or a serialization failure: the
 * callback's writes were rolled back with it, and the code inside transactions talks only to the
 * database (jobs are enqueued in the same transaction), so running it again is safe. Savepoints
 * (`tx.transaction`) are not retried: such an error aborts the enclosing transaction, which is.
 */
export function createDb(pool: pg.Pool): Db {
  const db = drizzle({ client: pool, schema, casing: 'snake_case' });
  const once = db.transaction.bind(db);
  const retried: Db['transaction'] = async (run, config) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(run, config);
      } catch (err) {
        const code = pgErrorOf(err)?.code;
        if (attempt >= TRANSACTION_ATTEMPTS || !code || !RETRYABLE.has(code)) throw err;
        // A short random pause, so the two sides of a deadlock do not meet again at once.
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 25 * attempt));
      }
    }
  };
  db.transaction = retried;
  return db;
}

export { schema };
