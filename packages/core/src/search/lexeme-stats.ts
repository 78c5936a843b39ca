import type { CoreContext } from '../context.js';

/**
 * Copies the planner's lexeme statistics of the searched tsvector columns into search_lexeme_stats
 * (migration 0009), where hybrid search reads each query word's weight by index. CONCURRENTLY: searches
 * keep reading the previous copy meanwhile. Returns the rows now held.
 */
export async function refreshLexemeStats(ctx: Pick<CoreContext, 'pool'>): Promise<number> {
  await ctx.pool.query('REFRESH MATERIALIZED VIEW CONCURRENTLY search_lexeme_stats');
  const { rows } = await ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM search_lexeme_stats');
  return rows[0]?.n ?? 0;
}
