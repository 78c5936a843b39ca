import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder.js';
import { STOPWORDS } from './stopwords.js';
import { wordVectors } from './word-vectors.js';

/**
 * Deterministic offline embedder, in two parts of one 768-dimension vector:
 * - lexical (the first 668 dimensions): signed feature hashing of word unigrams, word bigrams and
 *   character trigrams, so texts sharing words and word pieces (a typo, another inflection) land close;
 * - semantic (the last 100): the mean of the text's GloVe word vectors (packages/core/assets, see
 *   scripts/build-word-vectors.ts), each weighted a / (a + p(word)) by its frequency (rare words
 *   count more; Arora et al.'s smooth inverse frequency) with the direction all averages share
 *   removed, so "refund" lands near "money back" and "sign up" near "register".
 * Each part is L2-normalised and weighs half: cosine = (lexical cosine + semantic cosine) / 2. A text
 * asked again word for word still scores 1. It exists so the service runs with no model server; it
 * is far from a trained sentence model: set OLLAMA_HOST for one.
 */
export class LocalEmbedder implements Embedder {
  readonly model = 'local-hash-glove-v2';

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => embedText(t));
  }

  async warm() {
    const start = performance.now();
    embedText('warm up');
    return { model: this.model, ms: performance.now() - start };
  }
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of a text without function words. */
const words = (text: string) => (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOPWORDS.has(w));

export function tokenize(text: string): string[] {
  return words(text).map(stem);
}

/** A light suffix stripper so "passwords", "resetting" and "reset" share features. */
function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function add(vec: Float64Array, dims: number, feature: string, weight: number): void {
  const h = fnv1a(feature);
  const index = h % dims;
  const sign = (h >>> 31) & 1 ? -1 : 1;
  vec[index] = (vec[index] ?? 0) + sign * weight;
}

/** The semantic half's share of the squared norm (so of the cosine). */
const SEMANTIC_SHARE = 0.5;
/** Smooth inverse frequency: a word of probability p weighs a / (a + p). */
const SIF_A = 1e-3;
/** Zipf's law: the word of frequency rank r has probability about 0.1 / r in English text. */
const zipf = (rank: number) => 0.1 / rank;

export function lexicalPart(vec: Float64Array, dims: number, text: string): void {
  const tokens = tokenize(text);
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i] as string;
    add(vec, dims, `w:${w}`, 1);
    if (i + 1 < tokens.length) add(vec, dims, `b:${w}_${tokens[i + 1]}`, 0.5);
    const padded = `^${w}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(vec, dims, `c:${padded.slice(j, j + 3)}`, 0.25);
  }
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The frequency rank of a word, or of the most frequent known word one edit away (a deletion,
 * transposition, substitution or insertion; Norvig's spelling corrector) for an unknown word of four
 * letters or more, so "scholarhsip" counts as "scholarship" in the semantic half.
 */
function rankOf(vectors: ReturnType<typeof wordVectors>, w: string): number | undefined {
  const known = vectors.rank(w);
  if (known !== undefined || w.length < 4 || !/^[a-z]+$/.test(w)) return known;
  if (corrected.has(w)) return corrected.get(w);
  // Unknown words recur (names, jargon): each is corrected once per process, up to CORRECTIONS kept.
  if (corrected.size >= CORRECTIONS) corrected.clear();
  const rank = nearestKnown(vectors, w);
  corrected.set(w, rank);
  return rank;
}

const CORRECTIONS = 100_000;
const corrected = new Map<string, number | undefined>();

function nearestKnown(vectors: ReturnType<typeof wordVectors>, w: string): number | undefined {
  let best: number | undefined;
  const consider = (candidate: string) => {
    const r = vectors.rank(candidate);
    if (r !== undefined && (best === undefined || r < best)) best = r;
  };
  for (let i = 0; i <= w.length; i++) {
    const [head, tail] = [w.slice(0, i), w.slice(i)];
    if (tail) consider(head + tail.slice(1));
    if (tail.length > 1) consider(head + tail[1] + tail[0] + tail.slice(2));
    for (const c of LETTERS) {
      if (tail) consider(head + c + tail.slice(1));
      consider(head + c + tail);
    }
  }
  return best;
}

/**
 * Spelling corrections of a text: each word of four letters or more that the word list does not know
 * (a typo, mostly: "scholarhsip", "recieve"), mapped to the most frequent known word one edit away,
 * where there is one. Known words, short words, words with digits and function words are left alone.
 */
export function spellingCorrections(text: string): Map<string, string> {
  const vectors = wordVectors();
  const out = new Map<string, string>();
  for (const w of words(text)) {
    if (out.has(w) || vectors.rank(w) !== undefined) continue;
    const rank = rankOf(vectors, w);
    const fixed = rank === undefined ? undefined : vectors.word(rank);
    if (fixed !== undefined && fixed !== w) out.set(w, fixed);
  }
  return out;
}

/**
 * A text with its spelling corrections: `added` keeps every word and appends the corrections (for
 * matching: a name or jargon word the list lacks still matches itself), `replaced` swaps them in (for
 * the sentence encoder, whose subword pieces of a misspelt word mean little).
 */
export function withSpelling(text: string): { added: string; replaced: string; corrections: number } {
  const fixes = spellingCorrections(text);
  if (fixes.size === 0) return { added: text, replaced: text, corrections: 0 };
  return {
    added: `${text} ${[...fixes.values()].join(' ')}`,
    replaced: text.replace(WORD, (w) => fixes.get(w.toLowerCase()) ?? w),
    corrections: fixes.size,
  };
}

export function semanticPart(vec: Float64Array, offset: number, text: string): void {
  const vectors = wordVectors();
  let weights = 0;
  for (const w of words(text)) {
    const rank = rankOf(vectors, w);
    if (rank === undefined) continue;
    const weight = SIF_A / (SIF_A + zipf(rank));
    vectors.addTo(vec, offset, rank, weight);
    weights += weight;
  }
  for (let d = 0; d < vectors.dims; d++) vec[offset + d] = (vec[offset + d] as number) - weights * (vectors.common[d] as number);
}

/** Scales vec[from .. to) to the given norm and returns whether it was non-zero. */
export function scale(vec: Float64Array, from: number, to: number, norm: number): boolean {
  let sum = 0;
  for (let i = from; i < to; i++) sum += (vec[i] as number) ** 2;
  if (sum === 0) return false;
  const f = norm / Math.sqrt(sum);
  for (let i = from; i < to; i++) vec[i] = (vec[i] as number) * f;
  return true;
}

export function embedText(text: string): number[] {
  const vec = new Float64Array(EMBEDDING_DIMENSIONS);
  const lexicalDims = EMBEDDING_DIMENSIONS - wordVectors().dims;
  lexicalPart(vec, lexicalDims, text);
  semanticPart(vec, lexicalDims, text);
  const lexical = scale(vec, 0, lexicalDims, Math.sqrt(1 - SEMANTIC_SHARE));
  const semantic = scale(vec, lexicalDims, EMBEDDING_DIMENSIONS, Math.sqrt(SEMANTIC_SHARE));
  // A part that is empty (no known words, or no words at all) leaves the whole norm to the other.
  if (lexical !== semantic) scale(vec, 0, EMBEDDING_DIMENSIONS, 1);
  // An empty text gets a fixed unit vector, so cosine distance stays defined.
  if (!lexical && !semantic) vec[0] = 1;
  return Array.from(vec);
}
