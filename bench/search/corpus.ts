/**
 * Synthetic corpus with natural-language statistics: word frequencies follow a Zipf curve (rank r has
 * weight 1/r^1.05), English function words are interleaved as in prose, and each document leans on
 * one of a few hundred topics (its own Zipf over a slice of the vocabulary), so documents cluster
 * the way real FAQs do. Deterministic (seeded PRNG): every run builds the same corpus.
 */

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'br',
  'cl',
  'cr',
  'dr',
  'gr',
  'pl',
  'pr',
  'sh',
  'st',
  'tr',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
const CODAS = ['', 'n', 'r', 'l', 'm', 'nd', 'nt', 'st', 'ck', 'x', 'p', 'k'];
const FUNCTION_WORDS = 'the a to of and in is for on with how do i can my what when it be that you this are at or from not'.split(' ');

export const VOCAB_SIZE = 30_000;
const TOPICS = 400;
const TOPIC_WORDS = 150;

function makeVocabulary(rand: () => number): string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  while (words.length < VOCAB_SIZE) {
    const syllables = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let s = 0; s < syllables; s++) {
      w += ONSETS[Math.floor(rand() * ONSETS.length)];
      w += VOWELS[Math.floor(rand() * VOWELS.length)];
      if (s === syllables - 1) w += CODAS[Math.floor(rand() * CODAS.length)];
    }
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
}

/** Cumulative Zipf weights for inverse-CDF sampling. */
function zipfCdf(n: number, s: number): Float64Array {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 1; r <= n; r++) {
    sum += 1 / r ** s;
    cdf[r - 1] = sum;
  }
  for (let i = 0; i < n; i++) cdf[i] = (cdf[i] as number) / sum;
  return cdf;
}

function sample(cdf: Float64Array, u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cdf[mid] as number) < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class Corpus {
  readonly vocab: string[];
  private readonly rand: () => number;
  private readonly global = zipfCdf(VOCAB_SIZE, 1.05);
  private readonly topical = zipfCdf(TOPIC_WORDS, 0.9);
  private readonly topics: number[][];

  constructor(seed = 42) {
    this.rand = mulberry32(seed);
    this.vocab = makeVocabulary(this.rand);
    this.topics = Array.from({ length: TOPICS }, () =>
      Array.from({ length: TOPIC_WORDS }, () => 200 + Math.floor(this.rand() * (VOCAB_SIZE - 200))),
    );
  }

  /** Global frequency rank of a content word (0 = most frequent). */
  rank(word: string): number {
    return this.vocab.indexOf(word);
  }

  randomTopic(): number {
    return Math.floor(this.rand() * TOPICS);
  }

  contentWord(topic: number): string {
    const r = this.rand();
    const idx = r < 0.5 ? (this.topics[topic] as number[])[sample(this.topical, this.rand())] : sample(this.global, this.rand());
    return this.vocab[idx as number] as string;
  }

  commonWord(maxRank = 100): string {
    return this.vocab[Math.floor(this.rand() * maxRank)] as string;
  }

  sentence(topic: number, words: number): string {
    const out: string[] = [];
    for (let i = 0; i < words; i++) {
      if (this.rand() < 0.35) out.push(FUNCTION_WORDS[Math.floor(this.rand() * FUNCTION_WORDS.length)] as string);
      out.push(this.contentWord(topic));
    }
    return out.join(' ');
  }

  between(min: number, max: number): number {
    return min + Math.floor(this.rand() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)] as T;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.rand() * (i + 1));
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    return items;
  }

  faq(): { topic: number; question: string; answer: string } {
    const topic = this.randomTopic();
    return { topic, question: `how do i ${this.sentence(topic, this.between(5, 9))}`, answer: this.sentence(topic, this.between(25, 60)) };
  }

  post(): { title: string; body: string } {
    const topic = this.randomTopic();
    return { title: this.sentence(topic, this.between(5, 10)), body: this.sentence(topic, this.between(30, 90)) };
  }
}
