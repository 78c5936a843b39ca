import type { CoreContext } from '../context.js';
import { embeddingText } from '../embeddings/embed-row.js';
import { toVectorLiteral } from '../embeddings/embedder.js';
import { PUBLIC_FAQ_SQL } from '../faqs/visibility.js';
import { DUPLICATE_THRESHOLD } from '../search/duplicate-rule.js';
import { faqEfSearch } from '../search/graph-size.js';
import { prepareSearchConnection } from '../search/hybrid-runner.js';

/**
 * "Update FAQ X" instead of a new FAQ. A meeting insight or a knowledge item often restates a question
 * the program's FAQs already answer, perhaps with newer facts; a second FAQ would split the answer in
 * two. When the row matches an existing FAQ closely, the row proposes updating that FAQ
 * (proposedFaqId, proposedFaqScore on the row and in its responses), and converting or promoting it
 * updates that FAQ's answer by default (see conf/insights.ts and knowledge/items.ts).
 *
 * "Closely": cosine similarity >= FAQ_UPDATE_THRESHOLD between the row and the FAQ, both embedded the
 * way FAQs are (title + body: the insight's question and answer, the item's title and content; the
 * FAQ's question and answer), the nearest public FAQ (not draft) of the row's program. The threshold is
 * the spec's duplicate threshold (0.82, "a new question this close to an FAQ is the same question").
 */
export const FAQ_UPDATE_THRESHOLD = DUPLICATE_THRESHOLD;

export interface FaqProposal {
  faqId: string;
  score: number;
}

/** The columns a row stores its proposal in (null/null: a new FAQ). */
export const proposalColumns = (p: FaqProposal | null) => ({ proposedFaqId: p?.faqId ?? null, proposedFaqScore: p?.score ?? null });

/**
 * For each vector, the nearest public FAQ of the program when its similarity reaches the threshold,
 * else null. One statement for all vectors (a lateral nearest-neighbour per vector over the FAQ HNSW
 * index, with the search's iterative-scan settings so the program filter still finds the nearest).
 */
export async function nearestFaqProposals(
  ctx: Pick<CoreContext, 'pool'> & { config?: Pick<CoreContext['config'], 'SEARCH_HNSW_EF_SEARCH'> },
  batchId: string | null,
  vectors: readonly (readonly number[])[],
  threshold = FAQ_UPDATE_THRESHOLD,
): Promise<(FaqProposal | null)[]> {
  if (vectors.length === 0 || batchId === null) return vectors.map(() => null);
  const client = await ctx.pool.connect();
  try {
    await prepareSearchConnection(client, await faqEfSearch(ctx.pool, client, ctx.config?.SEARCH_HNSW_EF_SEARCH));
    const { rows } = await client.query<{ i: string; id: string; score: number }>(
      `SELECT u.i, f.id, f.score FROM unnest($1::text[]) WITH ORDINALITY u(v, i)
       CROSS JOIN LATERAL (
         SELECT id, 1 - (embedding <=> u.v::vector) AS score FROM faqs
         WHERE batch_id = $2 AND ${PUBLIC_FAQ_SQL} AND embedding IS NOT NULL
         ORDER BY embedding <=> u.v::vector LIMIT 1
       ) f`,
      [vectors.map((v) => toVectorLiteral(v)), batchId],
    );
    const out: (FaqProposal | null)[] = vectors.map(() => null);
    for (const r of rows) {
      const score = Number(r.score);
      if (score >= threshold) out[Number(r.i) - 1] = { faqId: r.id, score };
    }
    return out;
  } finally {
    client.release();
  }
}

/** The proposals for texts (title + body pairs) not embedded yet: embedded as FAQs are, then matched. */
export async function proposeFaqUpdates(
  ctx: Pick<CoreContext, 'pool' | 'embedder'>,
  batchId: string | null,
  texts: readonly { title: string; body: string }[],
): Promise<(FaqProposal | null)[]> {
  if (texts.length === 0 || batchId === null) return texts.map(() => null);
  const vectors = await ctx.embedder.embed(texts.map((t) => embeddingText('faqs', t.title, t.body)));
  return nearestFaqProposals(ctx, batchId, vectors);
}
