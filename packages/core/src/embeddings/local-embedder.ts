import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder.js';
import { STOPWORDS } from './stopwords.js';

/**
 * Deterministic offline embedder: signed feature hashing of word unigrams, word bigrams and
 * character trigrams, L2-normalised. It is lexical, not semantic: texts sharing words and word
 * pieces land close, synonyms do not. It exists so the service runs with no model server; set
 * OLLAMA_HOST for semantic embeddings.
 */
export class LocalEmbedder implements Embedder {
  readonly model = 'local-hash-v1';

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

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOPWORDS.has(w)).map(stem);
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

function add(vec: Float64Array, feature: string, weight: number): void {
  const h = fnv1a(feature);
  const index = h % EMBEDDING_DIMENSIONS;
  const sign = (h >>> 31) & 1 ? -1 : 1;
  vec[index] = (vec[index] ?? 0) + sign * weight;
}

export function embedText(text: string): number[] {
  const vec = new Float64Array(EMBEDDING_DIMENSIONS);
  const words = tokenize(text);
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    add(vec, `w:${w}`, 1);
    if (i + 1 < words.length) add(vec, `b:${w}_${words[i + 1]}`, 0.5);
    const padded = `^${w}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(vec, `c:${padded.slice(j, j + 3)}`, 0.25);
  }
  let norm = 0;
  for (const x of vec) norm += x * x;
  norm = Math.sqrt(norm);
  // An empty text gets a fixed unit vector, so cosine distance stays defined.
  if (norm === 0) {
    const out = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
    out[0] = 1;
    return out;
  }
  return Array.from(vec, (x) => x / norm);
}
