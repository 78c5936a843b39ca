/**
 * `npx tsx bench/relevance/fusion.ts`: the fusion replayed in memory, to see where the fused ranking
 * loses against its own lists. For each data set: the keyword list (BM25 as the service scores it: k1
 * 1.2, b 0.75, a body occurrence counting BODY_WEIGHT of a title one, length = distinct lexemes of
 * question + answer, PostgreSQL's English lexemes) and the vector list (the configured embedder,
 * FAQs embedded from question + answer) over every FAQ, then variants of their fusion: the service's
 * (lists of 5, RRF k = 60, the fixed filter, ties on textScore + vectorScore, the keyword list's
 * minimum score beside a vector list), RRF over deeper lists, other minimum scores; and, of the
 * queries the vector list puts right first and the fusion does not, what beat it.
 * Env: BENCH_SERVER_URL (lexemes only; no database is created), BENCH_RELEVANCE_DATA, BENCH_EMBED_CACHE
 * (as run.ts: vectors kept across runs).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  BM25_B,
  BM25_K1,
  BODY_WEIGHT,
  cosineSimilarity,
  createEmbedder,
  createLogger,
  embeddingText,
  keywordQuery,
  loadConfig,
  normalizeQuery,
  PER_LIST,
  RRF_K,
  TEXT_LIST_MIN_SCORE,
  VECTOR_CUTOFF,
} from '@cfaq/core';
import pg from 'pg';
// An unreachable BENCH_SERVER_URL is one line, not a stack.
import '../shared.js';
import { selectedDatasets } from './datasets.js';

const pct = (x: number) => (100 * x).toFixed(1);

const client = new pg.Client({ connectionString: process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
await client.connect();
/** PostgreSQL's English lexemes of each text with their occurrence counts (one statement). */
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

const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
const embedder = createEmbedder(config, createLogger({ level: 'warn' }));

/** Fused ranking of one query from full keyword and vector rankings and per-document scores. */
function fuse(
  tr: number[],
  vr: number[],
  ts: number[],
  vs: number[],
  o: { depth?: number; minText?: number; filter?: boolean } = {},
): { ranking: number[]; rrf: Map<number, number> } {
  const depth = o.depth ?? PER_LIST;
  const rrf = new Map<number, number>();
  const keyword = tr.filter((d) => (ts[d] as number) >= (o.minText ?? 0)).slice(0, depth);
  for (const list of [keyword, vr.slice(0, depth)]) {
    for (const [r, d] of list.entries()) rrf.set(d, (rrf.get(d) ?? 0) + 1 / (RRF_K + r + 1));
  }
  const both = (d: number) => (ts[d] as number) + (vs[d] as number);
  const ranking = [...rrf.keys()]
    .filter((d) => !(o.filter ?? true) || (ts[d] as number) > 0 || (vs[d] as number) >= VECTOR_CUTOFF)
    .sort((a, b) => (rrf.get(b) as number) - (rrf.get(a) as number) || both(b) - both(a) || a - b);
  return { ranking, rrf };
}

for (const ds of selectedDatasets()) {
  const n = ds.faqs.length;
  const qLex = await lexemes(ds.faqs.map((x) => x.question));
  const aLex = await lexemes(ds.faqs.map((x) => x.answer));
  // The keyword side's query as the service builds it (spelling corrections appended).
  const queryLex = await lexemes(ds.queries.map((q) => keywordQuery(normalizeQuery(q.text))));
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

  const cacheFile = process.env.BENCH_EMBED_CACHE ? `${process.env.BENCH_EMBED_CACHE}.${embedder.model}.json` : null;
  const cache = new Map<string, number[]>(cacheFile && existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : []);
  const embed = async (texts: string[]) => {
    const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
    for (const [i, v] of (await embedder.embed(missing)).entries()) cache.set(missing[i] as string, v);
    return texts.map((t) => cache.get(t) as number[]);
  };
  const docVectors = await embed(ds.faqs.map((x) => embeddingText('faqs', x.question, x.answer)));
  const queryVectors = await embed(ds.queries.map((q) => normalizeQuery(q.text)));
  if (cacheFile) writeFileSync(cacheFile, JSON.stringify([...cache]));

  const idOf = new Map(ds.faqs.map((x, i) => [x.id, i]));
  const acc = new Map<string, { p1: number; mrr: number; hit: number }>();
  const add = (system: string, ranking: number[], want: number) => {
    const a = acc.get(system) ?? { p1: 0, mrr: 0, hit: 0 };
    acc.set(system, a);
    const at = ranking.slice(0, 5).indexOf(want);
    if (at === 0) a.p1++;
    if (at >= 0) {
      a.mrr += 1 / (at + 1);
      a.hit++;
    }
  };
  const lost: Record<string, number> = {};
  let gained = 0;
  for (const [qi, q] of ds.queries.entries()) {
    const want = idOf.get(q.faqId) as number;
    const words = [...(queryLex[qi] as Map<string, number>).keys()];
    const total = words.reduce((s, l) => s + idf(l), 0) * (BM25_K1 + 1);
    const ts = docs.map((d) => {
      let s = 0;
      for (const l of words) {
        const tf = d.tf.get(l);
        if (tf) s += (idf(l) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * d.len) / avg));
      }
      return total > 0 ? s / total : 0;
    });
    const vs = docVectors.map((d) => cosineSimilarity(queryVectors[qi] as number[], d));
    const all = [...Array(n).keys()];
    const tr = all.filter((d) => (ts[d] as number) > 0).sort((a, b) => (ts[b] as number) - (ts[a] as number) || a - b);
    const vr = [...all].sort((a, b) => (vs[b] as number) - (vs[a] as number) || a - b);
    add('keyword list (BM25 as the service scores it)', tr, want);
    add('vector list', vr, want);
    const service = fuse(tr, vr, ts, vs, { minText: TEXT_LIST_MIN_SCORE });
    add(`fused: the service (keyword list min score ${TEXT_LIST_MIN_SCORE})`, service.ranking, want);
    add('fused: no keyword min score (before)', fuse(tr, vr, ts, vs).ranking, want);
    for (const minText of [0.1, 0.3, 0.4]) add(`fused: keyword min score ${minText}`, fuse(tr, vr, ts, vs, { minText }).ranking, want);
    add('fused: RRF over lists of 10, no filter', fuse(tr, vr, ts, vs, { depth: 10, filter: false }).ranking, want);
    add('fused: RRF over full rankings, no filter', fuse(tr, vr, ts, vs, { depth: n, filter: false }).ranking, want);
    const top = service.ranking[0];
    if (vr[0] === want && top !== want && top !== undefined) {
      const t5 = tr.filter((d) => (ts[d] as number) >= TEXT_LIST_MIN_SCORE).slice(0, PER_LIST);
      const v5 = vr.slice(0, PER_LIST);
      const why = !service.ranking.includes(want)
        ? 'the wanted row dropped by the fixed filter (textScore 0, vectorScore < 0.80)'
        : service.rrf.get(top) === service.rrf.get(want)
          ? 'a tie broken on textScore + vectorScore'
          : t5.includes(top) && v5.includes(top)
            ? t5.includes(want)
              ? 'a row in both lists, the wanted one in both too'
              : 'a row in both lists, the wanted one in the vector list only'
            : 'other';
      lost[why] = (lost[why] ?? 0) + 1;
    }
    if (vr[0] !== want && top === want) gained++;
  }
  const nq = ds.queries.length;
  console.log(`\n## ${ds.name}: ${n} FAQs, ${nq} queries (embedder ${embedder.model}); P@1 / MRR@5 / Hit@5\n`);
  console.log('| ranking | all |\n|---|---|');
  for (const [system, a] of acc) console.log(`| ${system} | ${pct(a.p1 / nq)} / ${pct(a.mrr / nq)} / ${pct(a.hit / nq)} |`);
  const losses = Object.values(lost).reduce((s, x) => s + x, 0);
  console.log(
    `\nvector list right first, the service's fusion not: ${losses} (${Object.entries(lost)
      .map(([k, v]) => `${v} ${k}`)
      .join('; ')}); the other way round: ${gained}`,
  );
}
await client.end();
