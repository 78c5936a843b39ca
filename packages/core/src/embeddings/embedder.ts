export const EMBEDDING_DIMENSIONS = 768;

/** pgvector's text form of a vector, as a query parameter or literal. */
export const toVectorLiteral = (v: readonly number[]) => `[${v.join(',')}]`;

/** Turns texts into 768-dimension vectors. Implementations: local (lexical) and Ollama. */
export interface Embedder {
  /** Stable identifier of the model, stored with nothing but shown by /warm and logs. */
  readonly model: string;
  embed(texts: string[]): Promise<number[][]>;
  /** Loads the model (Ollama) or primes caches, so the first real request is not the slow one. */
  warm(): Promise<{ model: string; ms: number }>;
  /**
   * A calibrated embedder's constant share c of every pair's cosine (cosine = c + (1 - c) x its parts'
   * cosine: sentence-embedder.ts); absent or 0 for the others. A cutoff written for plain cosines
   * (`relevanceCutoff`) is moved by it, or it would let every pair through.
   */
  readonly calibration?: number;
}

/** `cutoff`, a plain cosine's cutoff, in the embedder's own scores: c + (1 - c) x cutoff. */
export function relevanceCutoff(embedder: Pick<Embedder, 'calibration'>, cutoff: number): number {
  const c = embedder.calibration ?? 0;
  return c + (1 - c) * cutoff;
}

export async function embedOne(embedder: Embedder, text: string): Promise<number[]> {
  const [v] = await embedder.embed([text]);
  if (!v) throw new Error('embedder returned no vector');
  return v;
}

/** Cosine similarity of two vectors of the same length (0 when either is all zeros). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
