/**
 * `npx tsx bench/relevance/vectors.ts`: the vector side alone, in memory (no database), for the
 * embedders and sentence-encoder layouts side by side: P@1 / MRR@5 / Hit@5 of the cosine ranking of
 * every query against its set's FAQs (embedded from question + answer, as the embed-row job does),
 * the share of true pairs (query, its FAQ) and of unrelated pairs (query, any other FAQ) at or above
 * the spec's 0.80 filter and 0.82 duplicate threshold, and what the duplicate check (top vectorScore
 * >= 0.82) would block and how precisely. BENCH_RELEVANCE_DATA picks sets; LAYOUTS=lex:glove:use,...
 * adds share variants to try.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  combineVector,
  cosineSimilarity,
  EMBEDDING_DIMENSIONS,
  embeddingText,
  embedText,
  encodeSentences,
  normalizeQuery,
  SENTENCE_LAYOUTS,
  SentenceEmbedder,
  type SentenceLayout,
} from '@cfaq/core';
import { selectedDatasets } from './datasets.js';

const extra: SentenceLayout[] = (process.env.LAYOUTS ?? '')
  .split(',')
  .filter(Boolean)
  .map((s) => {
    const [l, g, u, c] = s.split(':').map(Number) as [number, number, number, number | undefined];
    return { name: g > 0 ? 'joined' : 'replace', lexical: l, glove: g, sentence: u, calibration: c ?? 0 };
  });

type Vectorize = (texts: string[], sentences: number[][]) => number[][] | Promise<number[][]>;
const systems: [string, Vectorize][] = [
  ['local (hash + GloVe)', (texts) => texts.map(embedText)],
  ['sentence encoder alone', (_t, s) => s],
  ...[SENTENCE_LAYOUTS.replace, SENTENCE_LAYOUTS.joined, ...extra].map((l): [string, Vectorize] => [
    `${l.name} ${l.lexical}/${l.glove}/${l.sentence} c ${l.calibration}`,
    (texts, s) => texts.map((t, i) => combineVector(t, s[i] as number[], l)),
  ]),
  // The embedder itself (the default layout, misspelt words corrected first): what the service stores.
  ['sentence embedder (default, spelling corrected)', (texts) => new SentenceEmbedder(SENTENCE_LAYOUTS.joined).embed(texts)],
];
const pct = (x: number) => (100 * x).toFixed(1);

for (const ds of selectedDatasets()) {
  const docTexts = ds.faqs.map((x) => embeddingText('faqs', x.question, x.answer));
  const qTexts = ds.queries.map((q) => normalizeQuery(q.text));
  const start = performance.now();
  const cacheFile = process.env.SENTENCE_CACHE ? `${process.env.SENTENCE_CACHE}.${ds.name}.json` : null;
  let cached: { docS: number[][]; qS: number[][] } | null = null;
  try {
    cached = cacheFile ? JSON.parse(readFileSync(cacheFile, 'utf8')) : null;
  } catch {}
  const docS = cached?.docS ?? (await encodeSentences(docTexts));
  const qCache = cacheFile ? `${cacheFile}.questions.json` : null;
  let questionS: number[][];
  try {
    questionS = JSON.parse(readFileSync(qCache as string, 'utf8'));
  } catch {
    questionS = await encodeSentences(ds.faqs.map((x) => x.question));
    if (qCache) writeFileSync(qCache, JSON.stringify(questionS));
  }
  const qS = cached?.qS ?? (await encodeSentences(qTexts));
  if (cacheFile && !cached) writeFileSync(cacheFile, JSON.stringify({ docS, qS }));
  const ms = (performance.now() - start) / (docTexts.length + qTexts.length);
  console.log(`\n## ${ds.name}: ${ds.faqs.length} FAQs, ${ds.queries.length} queries (encoder ${ms.toFixed(1)} ms/text in batches)`);
  console.log(
    '\n| vectors | P@1 | MRR@5 | Hit@5 | true >= 0.80 | true >= 0.82 | unrelated >= 0.80 | unrelated >= 0.82 | dup blocks | dup precision |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const index = new Map(ds.faqs.map((x, i) => [x.id, i]));
  const curves: string[] = [];
  for (const [name, vectorize] of systems) {
    const whole = await vectorize(docTexts, docS);
    const qOnly = await vectorize(
      ds.faqs.map((x) => x.question),
      questionS,
    );
    // DOC_MIX: a FAQ's vector as the normalised mix of its question's and its whole text's.
    const mix = Number(process.env.DOC_MIX ?? 0);
    const docs = whole.map((w, i) => {
      const v = w.map((x, d) => (1 - mix) * x + mix * ((qOnly[i] as number[])[d] as number));
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    });
    const qs = await vectorize(qTexts, qS);
    if ((docs[0] as number[]).length !== EMBEDDING_DIMENSIONS && name !== 'sentence encoder alone') throw new Error(`${name}: not 768`);
    let p1 = 0;
    let mrr = 0;
    let hit = 0;
    let t80 = 0;
    let t82 = 0;
    let u80 = 0;
    let u82 = 0;
    let unrelated = 0;
    let blocked = 0;
    let blockedRight = 0;
    const tops: [number, boolean][] = [];
    for (const [qi, q] of ds.queries.entries()) {
      const want = index.get(q.faqId) as number;
      const scores = docs.map((d, di) => [di, cosineSimilarity(qs[qi] as number[], d)] as const);
      for (const [di, s] of scores) {
        if (di === want) {
          t80 += s >= 0.8 ? 1 : 0;
          t82 += s >= 0.82 ? 1 : 0;
        } else {
          unrelated++;
          u80 += s >= 0.8 ? 1 : 0;
          u82 += s >= 0.82 ? 1 : 0;
        }
      }
      const ranked = [...scores].sort((a, b) => b[1] - a[1]);
      const at = ranked.slice(0, 5).findIndex(([di]) => di === want);
      if (at === 0) p1++;
      if (at >= 0) {
        mrr += 1 / (at + 1);
        hit++;
      }
      const top = ranked[0] as readonly [number, number];
      tops.push([top[1], top[0] === want]);
      if (top[1] >= 0.82) {
        blocked++;
        if (top[0] === want) blockedRight++;
      }
    }
    const n = ds.queries.length;
    // The top score above which the duplicate check would block 25 / 30 / 40 % of the queries, and its precision.
    tops.sort((a, b) => b[0] - a[0]);
    const curve = [0.25, 0.3, 0.4].map((share) => {
      const k = Math.round(share * tops.length);
      const right = tops.slice(0, k).filter(([, ok]) => ok).length;
      return `${pct(share)}%: cut ${(tops[k - 1] as [number, boolean])[0].toFixed(3)} precision ${pct(right / k)}`;
    });
    curves.push(`${name}: ${curve.join('; ')}`);
    console.log(
      `| ${name} | ${pct(p1 / n)} | ${pct(mrr / n)} | ${pct(hit / n)} | ${pct(t80 / n)} | ${pct(t82 / n)} | ${pct(u80 / unrelated)} | ${pct(u82 / unrelated)} | ${pct(blocked / n)} | ${blocked ? pct(blockedRight / blocked) : '-'} |`,
    );
  }
  console.log(`\nduplicate-check curve (top score cut for a block share, precision):\n${curves.join('\n')}`);
}
