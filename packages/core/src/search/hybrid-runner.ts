import type pg from 'pg';
import { toVectorLiteral } from '../embeddings/embedder.js';
import { buildHybridSql, type HybridRow, type HybridSqlOptions } from './hybrid-sql.js';
import { HNSW_EF_SEARCH } from './tuning.js';

/** Running the hybrid statement on PostgreSQL or PGlite through a `pg` pool (the SQL text is hybrid-sql.ts). */

/** The hnsw.ef_search each pooled connection was prepared with. */
const prepared = new WeakMap<pg.PoolClient, number>();

/**
 * Session settings for the vector sub-searches, applied once per pooled connection so each search
 * stays one statement: iterative index scans (pgvector 0.8) so a filtered nearest-neighbour query
 * still finds 5 rows, and the HNSW candidate list size (the SEARCH_HNSW_EF_SEARCH setting; the
 * default when not given).
 */
export async function prepareSearchConnection(client: pg.PoolClient, efSearch: number = HNSW_EF_SEARCH): Promise<void> {
  if (prepared.get(client) === efSearch) return;
  if (!Number.isInteger(efSearch) || efSearch < 1 || efSearch > 1000)
    throw new Error(`hnsw.ef_search must be an integer in 1..1000, got ${efSearch}`);
  await client.query(`SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = ${efSearch}`);
  prepared.set(client, efSearch);
}

/**
 * The statement text for one variant of the options. Unnamed on purpose: on the embedded database
 * every pool connection shares one PGlite session, so a named prepared statement made by one
 * connection collides with the same name on the next ("prepared statement already exists"). The
 * price on PostgreSQL is planning on every uncached search (~2.7 ms of ~22 ms; bench/search).
 * The session settings above are safe there: every connection sets the same values.
 */
export interface HybridStatement {
  text: string;
}

const statements = new Map<string, HybridStatement>();

/** The production statement for these options (default tuning), built once per process. */
export function hybridStatement(opts: HybridSqlOptions = {}): HybridStatement {
  const key = JSON.stringify([opts.sources, opts.modes, opts.filter, opts.limit]);
  let statement = statements.get(key);
  if (!statement) {
    statement = { text: buildHybridSql({ sources: opts.sources, modes: opts.modes, filter: opts.filter, limit: opts.limit }) };
    statements.set(key, statement);
  }
  return statement;
}

export interface HybridValues {
  query: string;
  /** null: text-only (the embedder failed or vector mode is off). */
  embedding: readonly number[] | null;
  programId: string;
  /** hnsw.ef_search (the SEARCH_HNSW_EF_SEARCH setting); HNSW_EF_SEARCH when omitted. */
  efSearch?: number | undefined;
}

export interface RunHybridParams extends HybridSqlOptions, HybridValues {}

/** Runs a statement on a pooled connection prepared for iterative scans. */
export async function runHybridStatement(pool: pg.Pool, statement: HybridStatement, v: HybridValues): Promise<HybridRow[]> {
  const client = await pool.connect();
  try {
    await prepareSearchConnection(client, v.efSearch);
    const res = await client.query<HybridRow>({
      ...statement,
      values: [v.query, v.embedding ? toVectorLiteral(v.embedding) : null, v.programId],
    });
    return res.rows;
  } finally {
    client.release();
  }
}

/** Runs the production statement for these options; without an embedding, its text-only variant. */
export async function runHybridSearch(pool: pg.Pool, p: RunHybridParams): Promise<HybridRow[]> {
  const modes = (p.modes ?? ['vector', 'text']).filter((m) => m !== 'vector' || p.embedding !== null);
  if (modes.length === 0) return [];
  return runHybridStatement(pool, hybridStatement({ sources: p.sources, modes, filter: p.filter, limit: p.limit }), p);
}
