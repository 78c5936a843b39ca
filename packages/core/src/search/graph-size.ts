import type pg from 'pg';
import { HNSW_EF_SEARCH } from './tuning.js';

/**
 * The FAQ graph's HNSW candidate list grows with the table. A graph search keeps the same recall only
 * with a longer candidate list as the graph grows: at 100,000 FAQs (bench/search) ef_search 150 found
 * 0.952-0.984 of the exact top 5 over several builds, at 300,000 only 0.876-0.946 (0.958 / 0.972 at 300 /
 * 400 on the 2026-11-27 build). So past EF_SEARCH_SCALE_ROWS rows the FAQ lists' ef_search (the
 * SEARCH_HNSW_EF_SEARCH setting) grows in proportion to the rows: 450 at 300,000 (recall@5 0.97 there for
 * 2.2 ms more a FAQ vector sub-query), at most pgvector's 1000. Smaller tables keep the setting as it is.
 * Posts keep theirs: embedded from short titles, their graph held 0.958-0.972 at 300,000 rows with 60,
 * and 180 there cost 2.5 ms more a posts vector sub-query for nothing.
 */
export const EF_SEARCH_SCALE_ROWS = 100_000;
/** pgvector's largest hnsw.ef_search. */
export const EF_SEARCH_MAX = 1000;

/** The candidate list for a graph of `rows` rows, from the setting's `base` (kept up to EF_SEARCH_SCALE_ROWS). */
export function scaledEfSearch(base: number, rows: number): number {
  if (!(rows > EF_SEARCH_SCALE_ROWS)) return base;
  return Math.max(base, Math.min(EF_SEARCH_MAX, Math.round((base * rows) / EF_SEARCH_SCALE_ROWS)));
}

/** How long a process trusts its last reading of the FAQ table's size. */
const ROWS_TTL_MS = 60_000;
const faqRows = new WeakMap<pg.Pool, { rows: number; at: number }>();

/**
 * The FAQ table's row count as the planner estimates it (pg_class.reltuples, which VACUUM, ANALYZE and
 * autovacuum keep; 0 for a table never analysed, which is a new, small one), read at most once a minute
 * per pool, on the connection the search already holds (a pool of one cannot lend a second).
 */
export async function faqRowEstimate(pool: pg.Pool, client: pg.PoolClient): Promise<number> {
  const known = faqRows.get(pool);
  if (known && Date.now() - known.at < ROWS_TTL_MS) return known.rows;
  const { rows } = await client.query<{ n: number }>(
    "SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'faqs'::regclass",
  );
  const n = Number(rows[0]?.n ?? 0);
  faqRows.set(pool, { rows: n, at: Date.now() });
  return n;
}

/** The FAQ lists' hnsw.ef_search: the setting (`base`), grown with the FAQ table as scaledEfSearch says. */
export async function faqEfSearch(pool: pg.Pool, client: pg.PoolClient, base: number = HNSW_EF_SEARCH): Promise<number> {
  return scaledEfSearch(base, await faqRowEstimate(pool, client));
}
