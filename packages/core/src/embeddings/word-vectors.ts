import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The word vectors of the local embedder's semantic part (scripts/build-word-vectors.ts makes it). */
export const WORD_VECTORS_FILE = fileURLToPath(new URL('../../assets/word-vectors.bin', import.meta.url));

export interface WordVectors {
  readonly dims: number;
  /** How many words the file holds (ranks 1 .. count). */
  readonly count: number;
  /** The word of a frequency rank (1 = the most frequent), or undefined past the end. */
  word(rank: number): string | undefined;
  /** A word's frequency rank (1 = the most frequent), or undefined when it is not in the list. */
  rank(word: string): number | undefined;
  /** Adds `weight` x the vector of the word of that rank to out[offset .. offset + dims). */
  addTo(out: Float64Array, offset: number, rank: number, weight: number): void;
  /** Frequency-weighted mean of the most frequent words: the direction every average shares. */
  readonly common: Float32Array;
}

let loaded: WordVectors | undefined;

/** Loads the file once per process (about 30 ms, 7 MB), on the first embedding that needs it. */
export function wordVectors(): WordVectors {
  loaded ??= parse(readFileSync(WORD_VECTORS_FILE));
  return loaded;
}

function parse(buf: Buffer): WordVectors {
  if (buf.toString('latin1', 0, 4) !== 'CFWV' || buf.readUInt32LE(4) !== 1)
    throw new Error(`${WORD_VECTORS_FILE}: not a version 1 word-vector file`);
  const count = buf.readUInt32LE(8);
  const dims = buf.readUInt32LE(12);
  const wordBytes = buf.readUInt32LE(16);
  const words = buf.toString('utf8', 20, 20 + wordBytes).split('\n');
  let offset = 20 + Math.ceil(wordBytes / 4) * 4;
  const scales = new Float32Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + count * 4));
  offset += count * 4;
  const data = new Int8Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + count * dims));
  if (words.length !== count || data.length !== count * dims) throw new Error(`${WORD_VECTORS_FILE}: truncated`);
  const index = new Map<string, number>();
  for (const [i, w] of words.entries()) index.set(w, i);
  const common = new Float32Array(dims);
  let total = 0;
  for (let i = 0; i < Math.min(count, 10_000); i++) {
    const weight = 1 / (i + 1);
    total += weight;
    const scale = (scales[i] as number) * weight;
    for (let d = 0; d < dims; d++) common[d] = (common[d] as number) + scale * (data[i * dims + d] as number);
  }
  for (let d = 0; d < dims; d++) common[d] = (common[d] as number) / total;
  return {
    dims,
    count,
    common,
    word: (rank) => words[rank - 1],
    rank: (word) => {
      const i = index.get(word);
      return i === undefined ? undefined : i + 1;
    },
    addTo(out, offset, rank, weight) {
      const i = rank - 1;
      const scale = (scales[i] as number) * weight;
      for (let d = 0; d < dims; d++) out[offset + d] = (out[offset + d] as number) + scale * (data[i * dims + d] as number);
    },
  };
}
