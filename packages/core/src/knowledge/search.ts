import type { CoreContext } from '../context.js';
import { embedOne, toVectorLiteral } from '../embeddings/embedder.js';
import { prepareSearchConnection } from '../search/hybrid-runner.js';
import type { KnowledgeHit, KnowledgeSourceType } from './shape.js';

/**
 * The knowledge base search (spec: the knowledge base is TranscriptKnowledge ∪ DocumentInsight, not a
 * model of its own). One function for every user: the auto-answer pipeline (top 3), the FAQ audit
 * (top 5) and the knowledge routes.
 *
 *   const hits = await searchKnowledge(ctx, { query: 'how do refunds work', batchId, k: 3 });
 *   if (hits === null) fallBack();          // the search failed (spec error rule 7): never throws
 *   hits[0]?.score                          // cosine similarity in [-1, 1], best first
 *
 * Only approved rows of the given program with an embedding take part; the score is
 * 1 - cosine distance between the query's embedding and the row's. Each side is an ORDER BY distance
 * LIMIT k sub-query, so the HNSW indexes serve it.
 */
export interface KnowledgeQuery {
  query: string;
  /** Program to search (required: the knowledge base is program-scoped). */
  batchId: string;
  /** Top k (default 5, at most 50). */
  k?: number;
  /** Drop hits below this similarity. */
  minScore?: number;
  /** A precomputed embedding of the query (skips the embedder). */
  embedding?: number[];
}

const SQL = `
SELECT * FROM (
  (SELECT 'transcript_knowledge' AS source_type, id, title, content, meeting_id,
          1 - (embedding <=> $1::vector) AS score
     FROM transcript_knowledge
    WHERE status = 'approved' AND batch_id = $2 AND embedding IS NOT NULL
    ORDER BY embedding <=> $1::vector
    LIMIT $3)
  UNION ALL
  (SELECT 'document_insight' AS source_type, id, title, content, NULL::uuid AS meeting_id,
          1 - (embedding <=> $1::vector) AS score
     FROM document_insights
    WHERE status = 'approved' AND batch_id = $2 AND embedding IS NOT NULL
    ORDER BY embedding <=> $1::vector
    LIMIT $3)
) hits
WHERE score >= $4
ORDER BY score DESC, id
LIMIT $3`;

interface Row {
  source_type: KnowledgeSourceType;
  id: string;
  title: string;
  content: string;
  meeting_id: string | null;
  score: number | string;
}

export async function searchKnowledge(
  ctx: Pick<CoreContext, 'pool' | 'embedder' | 'log' | 'config'>,
  q: KnowledgeQuery,
): Promise<KnowledgeHit[] | null> {
  const k = Math.min(Math.max(Math.trunc(q.k ?? 5), 1), 50);
  try {
    const text = q.query.trim();
    if (!text) return [];
    const vector = q.embedding ?? (await embedOne(ctx.embedder, text));
    // On a connection with the search's session settings (iterative index scans): the HNSW walk is
    // filtered by program and status afterwards, and without them a program whose rows are a small
    // share of the table could get fewer than k hits, or miss its best one (the worker's pool had none).
    const client = await ctx.pool.connect();
    let rows: Row[];
    try {
      await prepareSearchConnection(client, ctx.config.SEARCH_HNSW_EF_SEARCH);
      rows = (await client.query<Row>(SQL, [toVectorLiteral(vector), q.batchId, k, q.minScore ?? -1])).rows;
    } finally {
      client.release();
    }
    return rows.map((r) => ({
      id: r.id,
      sourceType: r.source_type,
      title: r.title,
      content: r.content,
      meetingId: r.meeting_id,
      score: Number(r.score),
    }));
  } catch (err) {
    ctx.log.warn(
      { err: err instanceof Error ? err.message : String(err), batchId: q.batchId },
      '[knowledge] search failed; returning null',
    );
    return null;
  }
}
