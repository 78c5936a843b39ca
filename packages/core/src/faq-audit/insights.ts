import { confInsights } from '@cfaq/db/schema/index';
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { STOPWORDS } from '../embeddings/stopwords.js';

/**
 * Meeting insights that speak to a FAQ: ConfInsight rows of the FAQ's program (or with no program)
 * with status pending_review or approved whose question, answer or context share keywords with the
 * FAQ's question. Keywords: lower-cased words of 3+ letters that are not stop words. An insight
 * matches when it shares at least 2 of them (1 when the question has fewer than 3 keywords).
 */
export function keywordsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length >= 3 && !STOPWORDS.has(w)).map(stem))];
}

/** A light suffix strip, so "opens", "opening" and "open" (or "weekdays" and "weekday") count as one keyword. */
function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

export interface MatchedInsight {
  id: string;
  status: 'pending_review' | 'approved';
  question: string;
  answer: string;
  createdAt: Date;
  shared: string[];
}

/** Candidates read at most, newest first, after the database's keyword pre-filter. */
const SCAN_LIMIT = 2000;

export async function matchInsights(
  ctx: Pick<CoreContext, 'db'>,
  faq: { question: string; batchId: string },
  limit = 5,
): Promise<MatchedInsight[]> {
  const keywords = keywordsOf(faq.question);
  if (keywords.length === 0) return [];
  const need = keywords.length < 3 ? 1 : 2;
  // Candidates: insights whose text holds any keyword (a stem as a substring, so every keyword match
  // below is among them), newest first; then exact keyword counting here. Without the pre-filter an
  // arbitrary 500 insights of the program were read and a match beyond them was never seen.
  const text = sql`(${confInsights.question} || ' ' || ${confInsights.answer} || ' ' || coalesce(${confInsights.context}, ''))`;
  // One array parameter (drizzle would spread a JS array into a row); keywords are letters and digits only.
  const patterns = `{${keywords.map((k) => `%${k}%`).join(',')}}`;
  const rows = await ctx.db
    .select({
      id: confInsights.id,
      status: confInsights.status,
      question: confInsights.question,
      answer: confInsights.answer,
      context: confInsights.context,
      createdAt: confInsights.createdAt,
    })
    .from(confInsights)
    .where(
      and(
        inArray(confInsights.status, ['pending_review', 'approved']),
        or(eq(confInsights.batchId, faq.batchId), isNull(confInsights.batchId)),
        sql`${text} ilike any(${patterns}::text[])`,
      ),
    )
    .orderBy(desc(confInsights.createdAt), desc(confInsights.id))
    .limit(SCAN_LIMIT);
  const out: MatchedInsight[] = [];
  for (const r of rows) {
    const words = new Set(keywordsOf(`${r.question} ${r.answer} ${r.context ?? ''}`));
    const shared = keywords.filter((k) => words.has(k));
    if (shared.length >= need) {
      out.push({
        id: r.id,
        status: r.status as MatchedInsight['status'],
        question: r.question,
        answer: r.answer,
        createdAt: r.createdAt,
        shared,
      });
    }
  }
  return out.sort((a, b) => b.shared.length - a.shared.length).slice(0, limit);
}
