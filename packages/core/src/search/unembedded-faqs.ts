import type pg from 'pg';
import { PUBLIC_FAQ_SQL } from '../faqs/visibility.js';
import { questionKey } from './duplicate-rule.js';

export interface UnembeddedFaq {
  id: string;
  /** The FAQ's question. */
  title: string;
  answer: string;
}

/**
 * For each question, a public FAQ of the program that asks it word for word (case, punctuation and
 * spacing aside) and has no embedding yet, else undefined. A FAQ created or converted a moment ago
 * waits about a second for its embed-row job, and until then the vector search cannot see it: the
 * duplicate check let its own question through, and promoting two copies of one document made two
 * identical FAQs. Such FAQs are few (they wait seconds for the job), so the newest 500 are read.
 */
export async function unembeddedSameQuestion(
  db: Pick<pg.ClientBase, 'query'>,
  batchId: string,
  questions: readonly string[],
): Promise<(UnembeddedFaq | undefined)[]> {
  const keys = questions.map(questionKey);
  if (!keys.some(Boolean)) return questions.map(() => undefined);
  const { rows } = await db.query<UnembeddedFaq>(
    `SELECT id, question AS title, answer FROM faqs WHERE batch_id = $1 AND ${PUBLIC_FAQ_SQL} AND embedding IS NULL
     ORDER BY created_at DESC LIMIT 500`,
    [batchId],
  );
  return keys.map((key) => (key ? rows.find((f) => questionKey(f.title) === key) : undefined));
}
