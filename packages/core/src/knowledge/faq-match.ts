import type { CoreContext } from '../context.js';
import { toVectorLiteral } from '../embeddings/embedder.js';
import { PUBLIC_FAQ_SQL } from '../faqs/visibility.js';
import { DUPLICATE_THRESHOLD, pickDuplicate } from '../search/duplicate-rule.js';
import { faqEfSearch } from '../search/graph-size.js';
import { prepareSearchConnection } from '../search/hybrid-runner.js';
import { normalizeQuery } from '../search/service.js';
import { PER_LIST } from '../search/tuning.js';
import { unembeddedSameQuestion } from '../search/unembedded-faqs.js';

/**
 * "Update FAQ X" instead of a new FAQ. A meeting insight or a knowledge item often restates a question
 * the program's FAQs already answer, perhaps with newer facts; a second FAQ would split the answer in
 * two. When the row asks an existing FAQ's question, the row proposes updating that FAQ
 * (proposedFaqId, proposedFaqScore on the row and in its responses), and converting or promoting it
 * updates that FAQ's answer by default (see conf/insights.ts and knowledge/items.ts).
 *
 * "Asks an existing FAQ's question": the duplicate check's rule (search/duplicate-rule.ts), with the
 * row's question (an insight's question, an item's title) as the new question: embedded as a query,
 * against the 5 nearest public FAQs (not drafts) of the row's program, the nearest at
 * vectorScore >= 0.82 and 0.02 ahead of the next different question, or a question asked word for
 * word. Not the row's whole text against the FAQ's: two documents of one help centre score 0.82 or
 * more almost always (with the sentence embedder, 238 of the relevance sets' 250 FAQs had another
 * FAQ that close), so nearly every row proposed an update of its nearest FAQ; by the question, a FAQ
 * left out of its set proposes another one 13-18 % of the time (README, "Knowledge routes").
 */
export const FAQ_UPDATE_THRESHOLD = DUPLICATE_THRESHOLD;

export interface FaqProposal {
  faqId: string;
  score: number;
}

/** The columns a row stores its proposal in (null/null: a new FAQ). */
export const proposalColumns = (p: FaqProposal | null) => ({ proposedFaqId: p?.faqId ?? null, proposedFaqScore: p?.score ?? null });

/**
 * For each question and its query vector, the FAQ the duplicate check would name, else null. One
 * statement for all of them (a lateral nearest-neighbour search per vector over the FAQ HNSW index,
 * with the search's iterative-scan settings so the program filter still finds the nearest 5).
 */
export async function nearestFaqProposals(
  ctx: Pick<CoreContext, 'pool'> & { config?: Pick<CoreContext['config'], 'SEARCH_HNSW_EF_SEARCH'> },
  batchId: string | null,
  rows: readonly { question: string; vector: readonly number[] }[],
): Promise<(FaqProposal | null)[]> {
  if (rows.length === 0 || batchId === null) return rows.map(() => null);
  const client = await ctx.pool.connect();
  try {
    // FAQs the worker has not embedded yet (one promoted or converted a moment ago) have no vector to be
    // found by; a row asking one word for word still proposes it, over any embedded neighbour (the
    // duplicate rule takes a word-for-word question first). Read before the vector search, so a FAQ
    // whose embedding commits in between is in one of the two reads, never in neither.
    const pending = await unembeddedSameQuestion(
      client,
      batchId,
      rows.map((r) => r.question),
    );
    await prepareSearchConnection(client, await faqEfSearch(ctx.pool, client, ctx.config?.SEARCH_HNSW_EF_SEARCH));
    const { rows: found } = await client.query<{ i: string; id: string; title: string; score: number }>(
      `SELECT u.i, f.id, f.title, f.score FROM unnest($1::text[]) WITH ORDINALITY u(v, i)
       CROSS JOIN LATERAL (
         SELECT id, question AS title, 1 - (embedding <=> u.v::vector) AS score FROM faqs
         WHERE batch_id = $2 AND ${PUBLIC_FAQ_SQL} AND embedding IS NOT NULL
         ORDER BY embedding <=> u.v::vector LIMIT ${PER_LIST}
       ) f`,
      [rows.map((r) => toVectorLiteral(r.vector)), batchId],
    );
    const candidates = rows.map(() => [] as { id: string; title: string; vectorScore: number }[]);
    for (const r of found) candidates[Number(r.i) - 1]?.push({ id: r.id, title: r.title, vectorScore: Number(r.score) });
    // Asked word for word: as sure as a match gets (score 1).
    pending.forEach((same, i) => {
      if (same) candidates[i]?.push({ id: same.id, title: same.title, vectorScore: 1 });
    });
    return rows.map((row, i) => {
      const picked = pickDuplicate(row.question, candidates[i] ?? []);
      return picked ? { faqId: picked.id, score: picked.vectorScore } : null;
    });
  } finally {
    client.release();
  }
}

/** The proposals for rows by their questions (or titles): each embedded as a query once, then matched. */
export async function proposeFaqUpdates(
  ctx: Pick<CoreContext, 'pool' | 'embedder'> & { config?: Pick<CoreContext['config'], 'SEARCH_HNSW_EF_SEARCH'> },
  batchId: string | null,
  questions: readonly string[],
): Promise<(FaqProposal | null)[]> {
  if (questions.length === 0 || batchId === null) return questions.map(() => null);
  // Upvoted answers on one post share its title: each distinct question is embedded once.
  const normalized = questions.map(normalizeQuery);
  const distinct = [...new Set(normalized)];
  const vectors = await ctx.embedder.embed(distinct);
  const vectorOf = new Map(distinct.map((q, i) => [q, vectors[i] as number[]]));
  return nearestFaqProposals(
    ctx,
    batchId,
    normalized.map((question) => ({ question, vector: vectorOf.get(question) as number[] })),
  );
}
