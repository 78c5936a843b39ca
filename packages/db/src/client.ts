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

/** A pg pool whose connections know the `vector` type (registered once per connection). */
export function createPool(opts: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'community-faq',
    idleTimeoutMillis: 30_000,
  });
  // Vectors travel as pgvector's text form: drizzle's vector column and `toSql` from the pgvector
  // package both speak it, so no per-connection type registration is needed.
  // An idle client's error (server restart) must not crash the process.
  pool.on('error', () => {});
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return drizzle({ client: pool, schema, casing: 'snake_case' });
}

export { schema };
