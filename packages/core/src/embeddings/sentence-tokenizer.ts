import type { EmbeddingsModel } from '@energetic-ai/embeddings';

/** A node of the library's vocabulary trie (`@energetic-ai/embeddings` lib/trie.ts). */
interface TrieNode {
  end: boolean;
  children: Record<string, TrieNode>;
  /** [the token's symbols, its score, its vocabulary index] */
  word: [string[], number, number];
}

/** The library tokenizer's fields this module reads (private in its typings, public at run time). */
interface LibraryTokenizer {
  vocabulary: [string, number][];
  trie: { root: TrieNode };
  encode(input: string): number[];
}

const SEPARATOR = '\u2581';

/**
 * The sentence encoder's SentencePiece tokenization, token for token the library's
 * (`Tokenizer.encode` of `@energetic-ai/embeddings` 0.2.0), without its quadratic cost: the library
 * copies the rest of the text (`symbols.slice(i)`) at every position to look up the tokens starting
 * there, so a 1,500-character knowledge chunk costs about a million element copies and most of the
 * garbage collection of an embedding. This walks the trie from each position in place. The lattice,
 * the best-path choice (`>=`, later starts win ties) and the back-tracking are the library's, so the
 * token ids, and the vectors, are unchanged (packages/core/test/sentence-tokenizer.test.ts compares
 * both on varied texts).
 */
export function encodeTokens(tokenizer: LibraryTokenizer, text: string): number[] {
  const normalized = text.normalize('NFKC');
  const input = normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized;
  const symbols = Array.from(input);
  const n = symbols.length;
  const root = tokenizer.trie.root;
  // Lattice: for each end position, the tokens ending there, in increasing start order (as the
  // library's per-end object keyed by start iterates).
  const endStarts: number[][] = Array.from({ length: n + 1 }, () => []);
  const endScores: number[][] = Array.from({ length: n + 1 }, () => []);
  const endIndexes: number[][] = Array.from({ length: n + 1 }, () => []);
  const endLengths: number[][] = Array.from({ length: n + 1 }, () => []);
  for (let i = 0; i < n; i++) {
    let node: TrieNode | undefined = own(root.children, symbols[i] as string);
    let found = false;
    for (let k = i; k < n && node; k++) {
      if (node.end) {
        const len = node.word[0].length;
        endStarts[i + len]?.push(i);
        endScores[i + len]?.push(node.word[1]);
        endIndexes[i + len]?.push(node.word[2]);
        endLengths[i + len]?.push(len);
        found = true;
      }
      node = k + 1 < n ? own(node.children, symbols[k + 1] as string) : undefined;
    }
    if (!found) {
      endStarts[i + 1]?.push(i);
      endScores[i + 1]?.push(0);
      endIndexes[i + 1]?.push(0);
      endLengths[i + 1]?.push(1);
    }
  }
  const words = new Array<number>(n + 1).fill(0);
  const best = new Array<number>(n + 1).fill(0);
  for (let end = 0; end <= n; end++) {
    const scores = endScores[end] as number[];
    const indexes = endIndexes[end] as number[];
    const lengths = endLengths[end] as number[];
    for (let j = 0; j < scores.length; j++) {
      const score = (scores[j] as number) + (best[end - (lengths[j] as number)] as number);
      if (best[end] === 0 || score >= (best[end] as number)) {
        best[end] = score;
        words[end] = indexes[j] as number;
      }
    }
  }
  const results: number[] = [];
  let iter = words.length - 1;
  while (iter > 0) {
    const id = words[iter] as number;
    results.push(id);
    iter -= (tokenizer.vocabulary[id] as [string, number])[0].length;
  }
  const merged: number[] = [];
  let previousUnknown = false;
  for (const id of results) {
    if (!(previousUnknown && id === 0)) merged.push(id);
    previousUnknown = id === 0;
  }
  return merged.reverse();
}

/** A child of a trie node, as the library's `children[symbol]` finds it (an own key; the object has no other). */
function own(children: Record<string, TrieNode>, symbol: string): TrieNode | undefined {
  return children[symbol];
}

/** Makes the model's tokenizer use `encodeTokens` (same tokens, linear cost). */
export function useLinearTokenizer(model: EmbeddingsModel): EmbeddingsModel {
  const tokenizer = model.tokenizer as unknown as LibraryTokenizer;
  tokenizer.encode = (input: string) => encodeTokens(tokenizer, input);
  return model;
}
