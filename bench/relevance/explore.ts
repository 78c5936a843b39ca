/**
 * Exploration harness (in memory): vector list alone and the service's fusion replayed, for embedding
 * variants. Env: VARIANTS (JSON list of variant objects), BENCH_RELEVANCE_DATA, TYPOS=1 (a typo in every query),
 * DUP_GAPS (the duplicate rule's margins over the runner-up to report, default 0.01,0.015,0.02,0.025).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  BM25_B,
  BM25_K1,
  BODY_WEIGHT,
  cosineSimilarity,
  embeddingText,
  encodeSentences,
  normalizeQuery,
  PER_LIST,
  RRF_K,
  scale,
  semanticPart,
  TEXT_LIST_MIN_SCORE,
  VECTOR_CUTOFF,
  withSpelling,
  wordVectors,
} from '@cfaq/core';
import pg from 'pg';
// An unreachable BENCH_SERVER_URL is one line, not a stack.
import '../shared.js';
import { STOPWORDS } from '../../packages/core/src/embeddings/stopwords.js';
import { datasetNames, readDataset } from './datasets.js';

interface Variant {
  name: string;
  lex: number;
  glove: number;
  use: number;
  c: number;
  lexDims?: number;
  sif?: boolean;
  bigram?: number;
  tri?: number;
  correct?: 'none' | 'add' | 'replace';
  kwCorrect?: boolean | 'replace';
  useCorrect?: boolean;
  minText?: number;
  docCorrect?: boolean;
  /**
   * Subtract a mean encoder vector (times `centerWeight`, default 1) before the encoder's part is
   * normalised: the mean of this set's FAQs (`self`) or of the other sets' (`other`, a fixed mean
   * from another subject).
   */
  center?: 'self' | 'other';
  centerWeight?: number;
  /**
   * Query-side only: rank by the cosine of (query - qcenter x the FAQs' mean vector) with the stored
   * vectors, a penalty on FAQs near the mean (hubs); thresholds still read the plain cosine.
   */
  qcenter?: number;
}

const ONLY = process.env.BENCH_RELEVANCE_DATA?.split(',').map((s) => s.trim());
const TYPOS = process.env.TYPOS === '1';
const pct = (x: number) => (100 * x).toFixed(1);
const DUP_GAPS = (process.env.DUP_GAPS ?? '0.01,0.015,0.02,0.025').split(',').map(Number);
const client = new pg.Client({ connectionString: process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
await client.connect();
async function lexemes(texts: string[]): Promise<Map<string, number>[]> {
  const { rows } = await client.query<{ n: number; lexeme: string; tf: number }>(
    `SELECT t.n::int, u.lexeme, cardinality(u.positions) AS tf
     FROM unnest($1::text[]) WITH ORDINALITY AS t(x, n), unnest(to_tsvector('english', t.x)) u`,
    [texts],
  );
  const out = texts.map(() => new Map<string, number>());
  for (const r of rows) out[r.n - 1]?.set(r.lexeme, r.tf);
  return out;
}

const WORD = /[\p{L}\p{N}]+/gu;
/** EXPAND=k,w,minCos,mode: query expansion by GloVe neighbours (mode rank: the keyword list too; filter: the fixed filter only). */
const EXPAND = process.env.EXPAND?.split(',');
const NOFILTER = process.env.NOFILTER === '1';
let gloveMatrix: Float32Array | null = null;
function neighbours(word: string, k: number, minCos: number): [string, number][] {
  const wv = wordVectors();
  const dims = wv.dims;
  if (!gloveMatrix) {
    gloveMatrix = new Float32Array(wv.count * dims);
    const tmp = new Float64Array(dims);
    for (let r = 1; r <= wv.count; r++) {
      tmp.fill(0);
      wv.addTo(tmp, 0, r, 1);
      let n = 0;
      for (const x of tmp) n += x * x;
      n = Math.sqrt(n) || 1;
      for (let d = 0; d < dims; d++) gloveMatrix[(r - 1) * dims + d] = (tmp[d] as number) / n;
    }
  }
  const r0 = wv.rank(word);
  if (r0 === undefined) return [];
  const m = gloveMatrix;
  const q = m.subarray((r0 - 1) * dims, r0 * dims);
  const best: [number, number][] = [];
  for (let r = 0; r < wv.count; r++) {
    if (r === r0 - 1) continue;
    let c = 0;
    for (let d = 0; d < dims; d++) c += (q[d] as number) * (m[r * dims + d] as number);
    if (c < minCos) continue;
    if (best.length < k || c > (best[best.length - 1] as [number, number])[1]) {
      best.push([r, c]);
      best.sort((a, b) => b[1] - a[1]);
      if (best.length > k) best.pop();
    }
  }
  return best.map(([r, c]) => [wv.word(r + 1) as string, c]);
}
/** The service's own spelling step (local-embedder.ts): `add` appends the corrections, `replace` swaps them in. */
function correct(text: string, mode: 'add' | 'replace'): string {
  const spelled = withSpelling(text);
  return mode === 'add' ? spelled.added : spelled.replaced;
}

/** A typo in one word of 5+ letters: two adjacent letters swapped (deterministic). */
function typo(text: string, seed: number): string {
  const words = [...text.matchAll(/[a-zA-Z]{5,}/g)];
  if (words.length === 0) return text;
  const m = words[seed % words.length] as RegExpMatchArray;
  const w = m[0];
  const i = 1 + (seed % (w.length - 2));
  const t = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  return text.slice(0, m.index) + t + text.slice((m.index as number) + w.length);
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}
function lexical(vec: Float64Array, dims: number, text: string, v: Variant) {
  const raw = (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOPWORDS.has(w));
  const tokens = raw.map(stem);
  const weightOf = (w: string) => {
    if (!v.sif) return 1;
    const r = wordVectors().rank(w);
    const p = r === undefined ? 0 : 0.1 / r;
    return 1e-3 / (1e-3 + p);
  };
  const add = (f: string, wt: number) => {
    const h = fnv1a(f);
    const i = h % dims;
    vec[i] = (vec[i] as number) + ((h >>> 31) & 1 ? -1 : 1) * wt;
  };
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i] as string;
    const wt = weightOf(raw[i] as string);
    add(`w:${w}`, wt);
    if (i + 1 < tokens.length) add(`b:${w}_${tokens[i + 1]}`, (v.bigram ?? 0.5) * Math.min(wt, weightOf(raw[i + 1] as string)));
    const padded = `^${w}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, (v.tri ?? 0.25) * wt);
  }
}
/** `mean`: the encoder vector the variant subtracts (`center`), or null. */
function combine(text: string, sentence: number[], v: Variant, mean: number[] | null): number[] {
  const gloveDims = v.glove > 0 ? 100 : 0;
  const useDims = v.use > 0 ? 512 : 0;
  const dims = 767;
  const lexDims = v.lexDims ?? dims - useDims - gloveDims;
  const vec = new Float64Array(768);
  if (v.lex > 0) lexical(vec, lexDims, text, v);
  if (gloveDims) semanticPart(vec, lexDims, text);
  const s = lexDims + gloveDims;
  const cw = mean ? (v.centerWeight ?? 1) : 0;
  if (useDims) for (let i = 0; i < 512; i++) vec[s + i] = (sentence[i] as number) - cw * (mean?.[i] ?? 0);
  for (const [from, to, share] of [
    [0, lexDims, v.lex],
    [lexDims, s, v.glove],
    [s, s + useDims, v.use],
  ] as const) {
    if (to > from) scale(vec, from, to, Math.sqrt(share));
  }
  scale(vec, 0, dims, Math.sqrt(1 - v.c));
  vec[dims] = Math.sqrt(v.c);
  return Array.from(vec);
}

/** The encoder's vectors of `texts`, cached in /tmp/relevance-use.<set>.json across runs. */
async function encoded(set: string, texts: string[]): Promise<Map<string, number[]>> {
  const cacheFile = `/tmp/relevance-use.${set}.json`;
  const cache = new Map<string, number[]>(existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : []);
  const missing = [...new Set(texts)].filter((t) => !cache.has(t));
  if (missing.length) {
    const vs = await encodeSentences(missing);
    for (const [i, v] of vs.entries()) cache.set(missing[i] as string, v);
    writeFileSync(cacheFile, JSON.stringify([...cache]));
  }
  return cache;
}

/** The element-wise mean of equal-length vectors. */
function meanVector(vs: number[][]): number[] {
  const m = new Array<number>(vs[0]?.length ?? 0).fill(0);
  for (const x of vs) for (let i = 0; i < m.length; i++) m[i] = (m[i] as number) + (x[i] as number) / vs.length;
  return m;
}

/** The mean encoder vector of the FAQs (as the documents are embedded: spelling replaced) of the sets named. */
async function faqMean(names: string[]): Promise<number[]> {
  const all: number[][] = [];
  for (const name of names) {
    const ds = readDataset(name);
    const texts = ds.faqs.map((x) => correct(embeddingText('faqs', x.question, x.answer), 'replace'));
    const cache = await encoded(name, texts);
    for (const t of texts) all.push(cache.get(t) as number[]);
  }
  return meanVector(all);
}

const SETS = datasetNames();

/** Without VARIANTS: the service's sentence embedder (shares 25/25/50, calibration 0.59, spelling step on both sides). */
const SERVICE: Variant = {
  name: 'service',
  lex: 0.25,
  glove: 0.25,
  use: 0.5,
  c: 0.59,
  correct: 'add',
  kwCorrect: true,
  useCorrect: true,
  docCorrect: true,
};
const variants: Variant[] = process.env.VARIANTS ? JSON.parse(process.env.VARIANTS) : [SERVICE];

for (const set of SETS) {
  const ds = readDataset(set);
  if (ONLY && !ONLY.includes(ds.name)) continue;
  // QUERIES_FROM=<set>: another subject's queries (none has an answer here): how many rows the filter lets through
  const qsrc = process.env.QUERIES_FROM ? readDataset(process.env.QUERIES_FROM).queries : ds.queries;
  if (process.env.QUERIES_FROM === ds.name) continue;
  const queries = qsrc.map((q, i) => ({ ...q, text: TYPOS ? typo(q.text, i * 7 + 3) : q.text }));
  const n = ds.faqs.length;
  const docTexts = ds.faqs.map((x) => embeddingText('faqs', x.question, x.answer));
  const qNorm = queries.map((q) => normalizeQuery(q.text));
  const cache = await encoded(ds.name, [
    ...docTexts,
    ...docTexts.map((d) => correct(d, 'replace')),
    ...qNorm,
    ...qNorm.map((q) => correct(q, 'replace')),
  ]);
  // keyword side
  const qLex = await lexemes(ds.faqs.map((x) => x.question));
  const aLex = await lexemes(ds.faqs.map((x) => x.answer));
  const docs = ds.faqs.map((_, i) => {
    const tf = new Map<string, number>();
    for (const [l, c] of qLex[i] as Map<string, number>) tf.set(l, c);
    for (const [l, c] of aLex[i] as Map<string, number>) tf.set(l, (tf.get(l) ?? 0) + BODY_WEIGHT * c);
    return { tf, len: tf.size };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const l of d.tf.keys()) df.set(l, (df.get(l) ?? 0) + 1);
  const avg = docs.reduce((s, d) => s + d.len, 0) / n;
  const idf = (l: string) => Math.log(1 + (n - (df.get(l) ?? 0) + 0.5) / ((df.get(l) ?? 0) + 0.5));
  const qLexPlain = await lexemes(qNorm);
  const qLexFixed = await lexemes(qNorm.map((q) => correct(q, 'add')));
  const qLexReplaced = await lexemes(qNorm.map((q) => correct(q, 'replace')));
  const idOf = new Map(ds.faqs.map((x, i) => [x.id, i]));
  const expansions: [string, number][][] = qNorm.map(() => []);
  if (EXPAND) {
    const [k, w, minCos] = EXPAND.slice(0, 3).map(Number) as [number, number, number];
    const qWords = qNorm.map((q) => (correct(q, 'add').toLowerCase().match(WORD) ?? []).filter((x) => !STOPWORDS.has(x)));
    const cands = qWords.map((ws) => ws.flatMap((x) => neighbours(x, k, minCos)));
    const uniq = [...new Set(cands.flat().map(([x]) => x))];
    const lx = await lexemes(uniq);
    const lexOf = new Map(uniq.map((x, i) => [x, [...(lx[i] as Map<string, number>).keys()][0]]));
    for (const [qi, cs] of cands.entries()) {
      const own = new Set((qLexFixed[qi] as Map<string, number>).keys());
      const m = new Map<string, number>();
      for (const [x, c] of cs) {
        const l = lexOf.get(x);
        if (!l || own.has(l)) continue;
        m.set(l, Math.max(m.get(l) ?? 0, w * c));
      }
      expansions[qi] = [...m];
    }
  }
  console.log(
    `\n## ${ds.name}${TYPOS ? ' (a typo in every query)' : ''}: vector P@1/MRR/Hit | fused P@1/MRR/Hit | true>=.80 unrel>=.80 | dup block/prec @.82 | dup prec @25%`,
  );
  const means = {
    self: variants.some((v) => v.center === 'self') ? await faqMean([ds.name]) : null,
    other: variants.some((v) => v.center === 'other') ? await faqMean(SETS.filter((x) => x !== ds.name)) : null,
  };
  for (const v of variants) {
    const mean = v.center ? means[v.center] : null;
    const docV = docTexts.map((t) =>
      v.docCorrect
        ? combine(correct(t, 'add'), cache.get(correct(t, 'replace')) as number[], v, mean)
        : combine(t, cache.get(t) as number[], v, mean),
    );
    // The FAQs' mean vector, for `qcenter` only.
    const docMean = v.qcenter ? meanVector(docV) : [];
    const acc = { shown: 0, empty: 0, vp1: 0, vmrr: 0, vhit: 0, fp1: 0, fmrr: 0, fhit: 0, t80: 0, u80: 0, unrel: 0, blocked: 0, right: 0 };
    const tops: [number, boolean][] = [];
    // the duplicate rule with a margin over the runner-up: [gap, blocked, right]
    const gaps = DUP_GAPS.map((g) => [g, 0, 0]);
    // the margin rule relaxed where the keyword list's first row is the vector list's: [gap, blocked, right]
    const agree = DUP_GAPS.map((g) => [g, 0, 0]);
    for (const [qi, q] of queries.entries()) {
      const want = idOf.get(q.faqId) as number;
      const qt = qNorm[qi] as string;
      const useText = v.useCorrect ? correct(qt, 'replace') : qt;
      const lexText = v.correct && v.correct !== 'none' ? correct(qt, v.correct) : qt;
      const qv = combine(lexText, cache.get(useText) as number[], v, mean);
      const vs = docV.map((d) => cosineSimilarity(qv, d));
      const qc = v.qcenter ? qv.map((x, i) => x - (v.qcenter as number) * (docMean[i] as number)) : qv;
      const rs = v.qcenter ? docV.map((d) => cosineSimilarity(qc, d)) : vs;
      const words = [
        ...((v.kwCorrect === 'replace' ? qLexReplaced : v.kwCorrect ? qLexFixed : qLexPlain)[qi] as Map<string, number>).keys(),
      ];
      const total = words.reduce((s, l) => s + idf(l), 0) * (BM25_K1 + 1);
      const bm = (d: { tf: Map<string, number>; len: number }, l: string) => {
        const tf = d.tf.get(l);
        return tf ? (idf(l) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * d.len) / avg)) : 0;
      };
      const plain = docs.map((d) => {
        let s = 0;
        for (const l of words) s += bm(d, l);
        return total > 0 ? s / total : 0;
      });
      const extra = expansions[qi] as [string, number][];
      const expanded = extra.length
        ? docs.map((d, i) => {
            let s = 0;
            for (const [l, wt] of extra) s += wt * bm(d, l);
            return (plain[i] as number) + (total > 0 ? s / total : 0);
          })
        : plain;
      const ts = EXPAND?.[3] === 'rank' ? expanded : plain;
      const tf0 = EXPAND ? expanded : plain;
      const all = [...Array(n).keys()];
      const tr = all.filter((d) => (ts[d] as number) > 0).sort((a, b) => (ts[b] as number) - (ts[a] as number) || a - b);
      const vr = [...all].sort((a, b) => (rs[b] as number) - (rs[a] as number) || a - b);
      const rrf = new Map<number, number>();
      const kw = tr.filter((d) => (ts[d] as number) >= (v.minText ?? TEXT_LIST_MIN_SCORE)).slice(0, PER_LIST);
      for (const list of [kw, vr.slice(0, PER_LIST)])
        for (const [r, d] of list.entries()) rrf.set(d, (rrf.get(d) ?? 0) + 1 / (RRF_K + r + 1));
      const both = (d: number) => (ts[d] as number) + (vs[d] as number);
      const fused = [...rrf.keys()]
        .filter((d) => NOFILTER || (tf0[d] as number) > 0 || (vs[d] as number) >= VECTOR_CUTOFF)
        .sort((a, b) => (rrf.get(b) as number) - (rrf.get(a) as number) || both(b) - both(a) || a - b);
      acc.shown += Math.min(5, fused.length);
      acc.empty += fused.length === 0 ? 1 : 0;
      const at = (r: number[]) => r.slice(0, 5).indexOf(want);
      const va = at(vr);
      const fa = at(fused);
      if (va === 0) acc.vp1++;
      if (va >= 0) {
        acc.vmrr += 1 / (va + 1);
        acc.vhit++;
      }
      if (fa === 0) acc.fp1++;
      if (fa >= 0) {
        acc.fmrr += 1 / (fa + 1);
        acc.fhit++;
      }
      for (const [d, s] of vs.entries()) {
        if (d === want) acc.t80 += s >= 0.8 ? 1 : 0;
        else {
          acc.unrel++;
          acc.u80 += s >= 0.8 ? 1 : 0;
        }
      }
      const top = vr[0] as number;
      tops.push([vs[top] as number, top === want]);
      const gap = (vs[top] as number) - (vs[vr[1] as number] as number);
      for (const g of gaps) {
        if ((vs[top] as number) >= 0.82 && gap >= (g[0] as number)) {
          (g[1] as number)++;
          g[2] = (g[2] as number) + (top === want ? 1 : 0);
        }
      }
      for (const g of agree) {
        const ok = (vs[top] as number) >= 0.82 && (gap >= 0.02 || (tr[0] === top && gap >= (g[0] as number)));
        if (ok) {
          (g[1] as number)++;
          g[2] = (g[2] as number) + (top === want ? 1 : 0);
        }
      }
      if ((vs[top] as number) >= 0.82) {
        acc.blocked++;
        acc.right += top === want ? 1 : 0;
      }
    }
    const nq = queries.length;
    tops.sort((a, b) => b[0] - a[0]);
    const k = Math.round(0.25 * nq);
    const p25 = tops.slice(0, k).filter(([, ok]) => ok).length / k;
    console.log(
      `${v.name.padEnd(34)} shown ${(acc.shown / queries.length).toFixed(2)} empty ${pct(acc.empty / queries.length)} | ${pct(acc.vp1 / nq)}/${pct(acc.vmrr / nq)}/${pct(acc.vhit / nq)} | ${pct(acc.fp1 / nq)}/${pct(acc.fmrr / nq)}/${pct(acc.fhit / nq)} | ${pct(acc.t80 / nq)} ${pct(acc.u80 / acc.unrel)} | ${pct(acc.blocked / nq)}/${acc.blocked ? pct(acc.right / acc.blocked) : '-'} | ${pct(p25)} (cut ${(tops[k - 1] as [number, boolean])[0].toFixed(3)}) | gap ${gaps.map(([g, b, r]) => `${g}: ${pct((b as number) / nq)}/${b ? pct((r as number) / (b as number)) : '-'}`).join(' ')} | agree ${agree.map(([g, b, r]) => `${g}: ${pct((b as number) / nq)}/${b ? pct((r as number) / (b as number)) : '-'}`).join(' ')}`,
    );
  }
}
await client.end();
