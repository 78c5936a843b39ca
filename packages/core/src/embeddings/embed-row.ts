import type { CoreContext } from '../context.js';
import { type Embedder, toVectorLiteral } from './embedder.js';
import { EMBEDDED_TABLES, type EmbeddedTable } from './tables.js';

/** The text columns each embedded table is embedded from (title-like, body-like). */
const TEXT_COLUMNS: Record<EmbeddedTable, readonly [string, string]> = {
  faqs: ['question', 'answer'],
  community_posts: ['title', 'body'],
  transcript_knowledge: ['title', 'content'],
  document_insights: ['title', 'content'],
};

/**
 * The text a row's embedding is computed from. FAQs, transcript knowledge and document insights: title
 * and body together. People search with rephrasings, and a FAQ's curated answer holds the words a
 * rephrasing reaches for that its question lacks: on hand-written rephrasings of 150 FAQs
 * (bench/relevance) the vector list's P@1 went from 0.34 (question alone) to 0.46 with the lexical
 * embedder. Community posts: the title alone. A post's body is its asker's narrative around the
 * question, long and loose; in it the question's own words drown (a retyped title scored about 0.5
 * against a post embedded with a 60-word body) and nearest neighbours become near-ties the HNSW index
 * cannot tell apart (post recall@5 at 100k fell from 0.97 to 0.89; bench/search). Bodies stay
 * searchable by keyword. The duplicate check, which compares questions, embeds FAQ questions itself.
 */
export const embeddingText = (table: EmbeddedTable, title: string, body: string) =>
  table === 'community_posts' ? title : `${title}\n${body}`;

interface TextRow {
  id: string;
  title: string;
  body: string;
}

async function storeEmbeddings(ctx: Pick<CoreContext, 'pool'>, table: EmbeddedTable, rows: TextRow[], vectors: number[][], model: string) {
  const [t, b] = TEXT_COLUMNS[table];
  // Written only where the text is still the text that was embedded: an edit racing the job wins,
  // and its own job embeds the new text.
  const res = await ctx.pool.query(
    `UPDATE ${table} AS x SET embedding = u.e::vector, embedded_at = now(), embedding_model = $5
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS u(id, t, b, e)
     WHERE x.id = u.id AND x.${t} = u.t AND x.${b} = u.b`,
    [rows.map((r) => r.id), rows.map((r) => r.title), rows.map((r) => r.body), vectors.map(toVectorLiteral), model],
  );
  return res.rowCount ?? 0;
}

export type EmbedRowResult = { status: 'embedded' } | { status: 'missing' } | { status: 'changed' };

/**
 * The embed-row job's work: load the row's text, embed it, store the vector if the text is unchanged.
 * A missing row (deleted since) is not an error; a changed one is left to the job its edit sent.
 */
export async function embedRow(
  ctx: Pick<CoreContext, 'pool' | 'embedder' | 'log'>,
  p: { table: EmbeddedTable; id: string },
): Promise<EmbedRowResult> {
  const [t, b] = TEXT_COLUMNS[p.table];
  const { rows } = await ctx.pool.query<TextRow>(`SELECT id, ${t} AS title, ${b} AS body FROM ${p.table} WHERE id = $1`, [p.id]);
  const row = rows[0];
  if (!row) return { status: 'missing' };
  const vectors = await ctx.embedder.embed([embeddingText(p.table, row.title, row.body)]);
  const written = await storeEmbeddings(ctx, p.table, [row], vectors, ctx.embedder.model);
  return written === 1 ? { status: 'embedded' } : { status: 'changed' };
}

/**
 * A batch's vectors. When the embedder refuses the batch, its rows are embedded one by one and a row it
 * refuses alone (Ollama's vector of zeros for one text) is left stale and logged: it stopped every
 * batch after it, and every table after its own, at each run. When it refuses the first two rows tried
 * alone, it is taken as down and the batch's error goes on (the job retries): a hung server would
 * otherwise cost its timeout once per row of the batch.
 */
async function embedBatch(ctx: Pick<CoreContext, 'log'>, table: EmbeddedTable, rows: TextRow[], embedder: Embedder) {
  const texts = rows.map((r) => embeddingText(table, r.title, r.body));
  try {
    return { rows, vectors: await embedder.embed(texts) };
  } catch (batchError) {
    const kept: { rows: TextRow[]; vectors: number[][] } = { rows: [], vectors: [] };
    for (const [i, row] of rows.entries()) {
      try {
        const [vector] = await embedder.embed([texts[i] as string]);
        kept.rows.push(row);
        kept.vectors.push(vector as number[]);
      } catch (err) {
        if (kept.rows.length === 0 && i >= 1) throw batchError;
        ctx.log.warn({ table, id: row.id, err }, 'embeddings backfill: the embedder refused this row; it stays without a vector');
      }
    }
    if (kept.rows.length === 0) throw batchError;
    return kept;
  }
}

export interface BackfillResult {
  table: EmbeddedTable;
  embedded: number;
}

/**
 * Embeds every row without an embedding or embedded by another model than the embedder's (a change
 * of EMBEDDER re-embeds everything), `batchSize` rows per embedder call and UPDATE. Each batch
 * commits on its own, so a run stopped half way resumes where it stopped: finished rows carry the
 * current model. Logs progress (done and remaining per table) after every batch.
 */
export async function backfillEmbeddings(
  ctx: Pick<CoreContext, 'pool' | 'embedder' | 'log'>,
  opts: { batchSize?: number; tables?: readonly EmbeddedTable[]; embedder?: Embedder; signal?: AbortSignal | undefined } = {},
): Promise<BackfillResult[]> {
  const batchSize = opts.batchSize ?? 64;
  const embedder = opts.embedder ?? ctx.embedder;
  const out: BackfillResult[] = [];
  for (const table of opts.tables ?? EMBEDDED_TABLES) {
    const [t, b] = TEXT_COLUMNS[table];
    const stale = `(embedding IS NULL OR embedding_model IS DISTINCT FROM $1)`;
    const count = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${stale}`, [embedder.model]);
    const total = count.rows[0]?.n ?? 0;
    let embedded = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    if (total > 0) ctx.log.info({ table, total, model: embedder.model }, 'embeddings backfill: rows to embed');
    for (;;) {
      // The worker is stopping: every batch so far is committed, and the job's retry resumes from the rows still stale.
      if (opts.signal?.aborted) throw new Error(`embeddings backfill stopped after ${embedded} ${table} rows; the retry goes on`);
      // Keyset by id, so a row whose text changes mid-run (and is skipped) is not fetched forever.
      const { rows } = await ctx.pool.query<TextRow>(
        `SELECT id, ${t} AS title, ${b} AS body FROM ${table} WHERE ${stale} AND id > $2 ORDER BY id LIMIT $3`,
        [embedder.model, after, batchSize],
      );
      if (rows.length === 0) break;
      const done = await embedBatch(ctx, table, rows, embedder);
      embedded += await storeEmbeddings(ctx, table, done.rows, done.vectors, embedder.model);
      after = (rows[rows.length - 1] as TextRow).id;
      ctx.log.info({ table, embedded, remaining: Math.max(total - embedded, 0), model: embedder.model }, 'embeddings backfill progress');
    }
    out.push({ table, embedded });
  }
  return out;
}
