/**
 * Synthetic corpus with natural-language statistics, made of real English words: content words are
 * the 30,000 most frequent non-stop-words of the local embedder's GloVe list, drawn in their real
 * frequency order on a Zipf curve (rank r has weight 1/r^1.05); English function words are
 * interleaved as in prose; each document leans on one of 400 topics, a seed word and its 150 nearest
 * words by GloVe cosine (its own Zipf, nearest first), so documents cluster by meaning the way real
 * FAQs do; and 3 % of content words are made-up product names and jargon no dictionary knows.
 * Deterministic (seeded PRNG): every run builds the same corpus.
 */
import { wordVectors } from '@cfaq/core';

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

/**
 * PostgreSQL's english.stop: the words the `english` text-search configuration drops, so every content
 * word is searchable. The embedder's STOPWORDS differ by a few words (it also drops could / would).
 */
const STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its
  itself they them their theirs themselves what which who whom this that these those am is are was were be been being have
  has had having do does did doing a an the and but if or because as until while of at by for with about against between
  into through during before after above below to from up down in out on off over under again further then once here there
  when where why how all any both each few more most other some such no nor not only own same so than too very s t can will
  just don should now`.split(/\s+/),
);
const FUNCTION_WORDS = 'the a to of and in is for on with how do i can my what when it be that you this are at or from not'.split(' ');

export const VOCAB_SIZE = 30_000;
const TOPICS = 400;
const TOPIC_WORDS = 150;
/** Share of content words that are made-up names (products, jargon) unknown to any word list. */
const OOV_SHARE = 0.03;
const OOV_WORDS = 2_000;

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

function madeUpWords(rand: () => number, count: number, taken: Set<string>): string[] {
  const words: string[] = [];
  while (words.length < count) {
    const syllables = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let s = 0; s < syllables; s++) {
      w += ONSETS[Math.floor(rand() * ONSETS.length)];
      w += VOWELS[Math.floor(rand() * VOWELS.length)];
      if (s === syllables - 1) w += CODAS[Math.floor(rand() * CODAS.length)];
    }
    if (!taken.has(w)) {
      taken.add(w);
      words.push(w);
    }
  }
  return words;
}

interface Language {
  /** Content words, most frequent first. */
  vocab: string[];
  /** Made-up words. */
  oov: string[];
  /** Per topic, indexes into vocab, nearest to the topic's seed first. */
  topics: number[][];
}

let language: Language | undefined;

/** The vocabulary and topics (the same for every corpus; about 6 s on 2 cores, built once per process). */
function buildLanguage(): Language {
  if (language) return language;
  const wv = wordVectors();
  const vocab: string[] = [];
  const ranks: number[] = [];
  for (let r = 1; r <= wv.count && vocab.length < VOCAB_SIZE; r++) {
    const w = wv.word(r) as string;
    if (w.length >= 3 && /^[a-z]+$/.test(w) && !STOP_WORDS.has(w)) {
      vocab.push(w);
      ranks.push(r);
    }
  }
  if (vocab.length < VOCAB_SIZE) throw new Error(`the word list has only ${vocab.length} usable words`);
  // Unit vectors of the vocabulary, for the topics' nearest words.
  const dims = wv.dims;
  const unit = new Float32Array(VOCAB_SIZE * dims);
  const tmp = new Float64Array(dims);
  for (let i = 0; i < VOCAB_SIZE; i++) {
    tmp.fill(0);
    wv.addTo(tmp, 0, ranks[i] as number, 1);
    let n = 0;
    for (let d = 0; d < dims; d++) n += (tmp[d] as number) ** 2;
    n = Math.sqrt(n) || 1;
    for (let d = 0; d < dims; d++) unit[i * dims + d] = (tmp[d] as number) / n;
  }
  const rand = mulberry32(7);
  const topics: number[][] = [];
  const sims = new Float32Array(VOCAB_SIZE);
  for (let t = 0; t < TOPICS; t++) {
    // Seeds among mid-frequency words: topical, not function-like, not obscure.
    const seed = 100 + Math.floor(rand() * 4_900);
    for (let i = 0; i < VOCAB_SIZE; i++) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += (unit[seed * dims + d] as number) * (unit[i * dims + d] as number);
      sims[i] = dot;
    }
    const order = Array.from({ length: VOCAB_SIZE }, (_, i) => i);
    order.sort((a, b) => (sims[b] as number) - (sims[a] as number) || a - b);
    topics.push(order.slice(0, TOPIC_WORDS));
  }
  language = { vocab, oov: madeUpWords(rand, OOV_WORDS, new Set(vocab)), topics };
  return language;
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

  private readonly oov: string[];

  constructor(seed = 42) {
    this.rand = mulberry32(seed);
    const lang = buildLanguage();
    this.vocab = lang.vocab;
    this.oov = lang.oov;
    this.topics = lang.topics;
  }

  /** Every content word the corpus can write: the vocabulary and the made-up names. */
  words(): string[] {
    return [...this.vocab, ...this.oov];
  }

  /** Global frequency rank of a content word (0 = most frequent). */
  rank(word: string): number {
    return this.vocab.indexOf(word);
  }

  randomTopic(): number {
    return Math.floor(this.rand() * TOPICS);
  }

  contentWord(topic: number): string {
    if (this.rand() < OOV_SHARE) return this.oov[Math.floor(this.rand() * this.oov.length)] as string;
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
