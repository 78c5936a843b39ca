import { createHash } from 'node:crypto';
import type pg from 'pg';
import { toVectorLiteral } from '../embeddings/embedder.js';
import { spellingCorrections } from '../embeddings/local-embedder.js';
import { faqEfSearch } from './graph-size.js';
import { buildHybridSql, type HybridRow, type HybridSqlOptions } from './hybrid-sql.js';
import type { SearchSource } from './sources.js';
import { HNSW_EF_SEARCH, MAX_RESULTS } from './tuning.js';

/** Running the hybrid statement on PostgreSQL or PGlite through a `pg` pool (the SQL text is hybrid-sql.ts). */

interface PreparedConnection {
  /** The hnsw.ef_search it was prepared with. */
  efSearch: number;
  /** A connection of its own PostgreSQL session (not the embedded PGlite's shared one): statements may be named. */
  ownSession: boolean;
}
const prepared = new WeakMap<pg.PoolClient, PreparedConnection>();
/** Pools seen to give connections of their own sessions (PostgreSQL), where sources can run side by side. */
const ownSessionPools = new WeakSet<pg.Pool>();

/**
 * Session settings for the vector sub-searches, applied once per pooled connection so each search
 * stays one statement: iterative index scans (pgvector 0.8) so a filtered nearest-neighbour query
 * still finds 5 rows, and the HNSW candidate list size (the SEARCH_HNSW_EF_SEARCH setting; the
 * default when not given).
 */
export async function prepareSearchConnection(client: pg.PoolClient, efSearch: number = HNSW_EF_SEARCH): Promise<void> {
  const known = prepared.get(client);
  if (known?.efSearch === efSearch) return;
  if (!Number.isInteger(efSearch) || efSearch < 1 || efSearch > 1000)
    throw new Error(`hnsw.ef_search must be an integer in 1..1000, got ${efSearch}`);
  if (known) {
    // Prepared for another source's candidate list (posts have their own): one SET moves it.
    await client.query(`SET hnsw.ef_search = ${efSearch}`);
    known.efSearch = efSearch;
    return;
  }
  const res = (await client.query(
    `SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = ${efSearch}; SELECT version() LIKE '%PGlite%' AS embedded`,
  )) as unknown as pg.QueryResult<{ embedded: boolean }>[];
  prepared.set(client, { efSearch, ownSession: res.at(-1)?.rows[0]?.embedded === false });
}

/**
 * The statement text for one variant of the options. On PostgreSQL it runs as a named prepared
 * statement (named after a hash of its text), prepared once per connection: the four-source
 * statement has about 70 CTEs, and planning it on every uncached search cost about a quarter of its
 * time (bench/search); after five runs PostgreSQL keeps a generic plan, the same plan here since every
 * parameter-dependent choice is inside the CTEs (InitPlans). On the embedded database it stays
 * unnamed: every pool connection shares one PGlite session, so a named statement made by one
 * connection collides with the same name on the next ("prepared statement already exists"). The
 * session settings above are safe there: every connection sets the same values.
 */
export interface HybridStatement {
  text: string;
  /** The prepared statement's name (a hash of the text; computed when missing). */
  name?: string;
  /** The sources it searches (buildHybridSql's default, FAQs and posts, when missing): they set its hnsw.ef_search. */
  sources?: readonly SearchSource[];
}

const statementName = (text: string) => `hybrid_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

const statements = new Map<string, HybridStatement>();

/** The production statement for these options (default tuning), built once per process. */
export function hybridStatement(opts: HybridSqlOptions = {}): HybridStatement {
  const key = JSON.stringify([opts.sources, opts.modes, opts.filter, opts.limit]);
  let statement = statements.get(key);
  if (!statement) {
    const text = buildHybridSql({ sources: opts.sources, modes: opts.modes, filter: opts.filter, limit: opts.limit });
    statement = { text, name: statementName(text), sources: opts.sources };
    statements.set(key, statement);
  }
  return statement;
}

export interface HybridValues {
  query: string;
  /** null: text-only (the embedder failed or vector mode is off). */
  embedding: readonly number[] | null;
  programId: string;
  /** hnsw.ef_search (the SEARCH_HNSW_EF_SEARCH setting; for FAQs grown past 100,000 rows: graph-size.ts); HNSW_EF_SEARCH when omitted. */
  efSearch?: number | undefined;
  /** hnsw.ef_search of the posts' vector list (SEARCH_HNSW_EF_SEARCH_POSTS); `efSearch` when omitted. */
  efSearchPosts?: number | undefined;
}

/**
 * The candidate list a statement runs with: each source's own (the posts' for posts, `efSearch` for
 * the others, grown with the table for FAQs: graph-size.ts), and over several sources, which share one
 * session setting, the largest (no source's recall drops below its own setting's).
 */
function efSearchFor(sources: readonly SearchSource[], v: HybridValues, faqEf: number): number {
  const base = v.efSearch ?? HNSW_EF_SEARCH;
  return Math.max(...sources.map((s) => (s === 'community' ? (v.efSearchPosts ?? base) : s === 'faq' ? faqEf : base)));
}

export interface RunHybridParams extends HybridSqlOptions, HybridValues {}

/** Runs a statement on a pooled connection prepared for iterative scans. */
export async function runHybridStatement(pool: pg.Pool, statement: HybridStatement, v: HybridValues): Promise<HybridRow[]> {
  const client = await pool.connect();
  try {
    const sources = statement.sources ?? ['faq', 'community'];
    const faqEf = sources.includes('faq') ? await faqEfSearch(pool, client, v.efSearch) : 0;
    await prepareSearchConnection(client, efSearchFor(sources, v, faqEf));
    if (prepared.get(client)?.ownSession) ownSessionPools.add(pool);
    const values = [v.query, v.embedding ? toVectorLiteral(v.embedding) : null, v.programId];
    const res = await client.query<HybridRow>(
      prepared.get(client)?.ownSession
        ? { name: statement.name ?? statementName(statement.text), text: statement.text, values }
        : { text: statement.text, values },
    );
    return res.rows;
  } finally {
    client.release();
  }
}

/**
 * The keyword side's query: the query with the spelling corrections of its misspelt words appended
 * (spellingCorrections: a word the word list lacks, mapped to the most frequent known word one edit
 * away). The misspelt word stays, so a name or a jargon word the list lacks still matches itself; its
 * correction matches the documents that spell it right. People type fast: with a typo in every query
 * of bench/relevance, the keyword side's fix alone lifted the fused P@1 from 47.1 to 52.7
 * (cohort-program) and from 53.3 to 54.7 (public-library).
 */
export function keywordQuery(query: string): string {
  const fixes = spellingCorrections(query);
  return fixes.size === 0 ? query : `${query} ${[...fixes.values()].join(' ')}`;
}

/**
 * The fused order of hybrid-sql.ts's final ORDER BY: rrfScore, then textScore + vectorScore (the same
 * float8 sum PostgreSQL computes, from the same float8 values), descending; then source and id
 * ascending (the four source tags differ in their first letter, and a uuid compares as its lowercase
 * hex text does).
 */
function fusedOrder(a: HybridRow, b: HybridRow): number {
  return (
    b.rrfScore - a.rrfScore ||
    b.textScore + b.vectorScore - (a.textScore + a.vectorScore) ||
    (a.source < b.source ? -1 : a.source > b.source ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * Runs the production statement for these options; without an embedding, its text-only variant.
 *
 * On PostgreSQL the sources run side by side (the spec: "four queries run in parallel"), one statement
 * per source on a connection of its own, and their rows are merged here. That is the same answer as the
 * one statement over every source: a result's rrfScore, textScore and vectorScore come from its own
 * source's lists only (RRF sums per source and id), the fixed filter is per row, so the first `limit`
 * of the union are among the first `limit` of each source, taken in the statement's own order. One
 * statement ran its ~70 CTEs one after another in one backend: at 100,000 + 100,000 rows the four
 * sources cost 20 + 12 + 8 + 8 ms of backend CPU, which side by side take the wall time of the
 * slowest where cores are free (bench/search). Each statement takes and returns its own connection,
 * so concurrent searches never hold one while waiting for another (no pool deadlock). The embedded
 * database (one PGlite session behind every connection) runs them in turn anyway: there it stays
 * one statement, as on a pool not yet seen.
 */
export async function runHybridSearch(pool: pg.Pool, p: RunHybridParams): Promise<HybridRow[]> {
  const modes = (p.modes ?? ['vector', 'text']).filter((m) => m !== 'vector' || p.embedding !== null);
  if (modes.length === 0) return [];
  const query = modes.includes('text') ? keywordQuery(p.query) : p.query;
  const sources = p.sources ?? ['faq', 'community'];
  const values = { ...p, query };
  if (sources.length < 2 || !ownSessionPools.has(pool)) {
    return runHybridStatement(pool, hybridStatement({ sources, modes, filter: p.filter, limit: p.limit }), values);
  }
  const perSource = await Promise.all(
    sources.map((s) => runHybridStatement(pool, hybridStatement({ sources: [s], modes, filter: p.filter, limit: p.limit }), values)),
  );
  return perSource
    .flat()
    .sort(fusedOrder)
    .slice(0, p.limit ?? MAX_RESULTS);
}
