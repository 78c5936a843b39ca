/**
 * The duplicate check in programs smaller than a whole relevance set (`npx tsx bench/relevance/small-programs.ts`;
 * needs no database). A program of k FAQs is drawn at random from a set; then
 * - new questions: the questions of FAQs outside the program, asked as new questions (the check must
 *   let them through: no FAQ of the program answers them), and
 * - rephrasings: the set's queries written for FAQs inside the program (a block is right when it names
 *   that FAQ),
 * go through the service's rule (pickDuplicate) with the service's embedder, and again with its
 * vectorScores rescaled to other calibration constants (cosine = c + (1 - c) x the parts' cosine, so
 * the rescaling is exact). In a small program the nearest different question is far, so the margin
 * rarely holds a block back and the constant alone decides.
 * A size of the whole set or more takes the whole set once, and asks each FAQ's question against the
 * other FAQs. Env: SIZES (program sizes, default 3,10,30,1000), DRAWS (programs a size, default 40), CALIBRATIONS
 * (default 0.59,0.64), BENCH_RELEVANCE_DATA (set names).
 */
import {
  CALIBRATION,
  cosineSimilarity,
  createEmbedder,
  createLogger,
  embeddingText,
  loadConfig,
  normalizeQuery,
  PER_LIST,
  pickDuplicate,
} from '@cfaq/core';
import { benchInt } from '../shared.js';
import { type Dataset, selectedDatasets } from './datasets.js';

const SIZES = (process.env.SIZES ?? '3,10,30,1000').split(',').map(Number);
const DRAWS = benchInt('DRAWS', 40);
const CALIBRATIONS = (process.env.CALIBRATIONS ?? '0.59,0.64').split(',').map(Number);
const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');

const embedder = createEmbedder(loadConfig({ ...process.env, EMBEDDER: 'sentence', LOG_LEVEL: 'warn' }), createLogger({ level: 'warn' }));
/** A cosine of the service's embedder as the same pair would score at constant c. */
const rescaled = (x: number, c: number) => c + (1 - c) * ((x - CALIBRATION) / (1 - CALIBRATION));

/** A small deterministic generator, so every run draws the same programs. */
function generator(seed: number) {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

console.log(`# the duplicate check in small programs (${embedder.model}, ${DRAWS} programs a size)\n`);
console.log('| set | FAQs in the program | constant | new questions blocked | rephrasings blocked / right |');
console.log('|---|---|---|---|---|');
for (const ds of selectedDatasets()) {
  const docs = await embedder.embed(ds.faqs.map((f) => embeddingText('faqs', f.question, f.answer)));
  const asked = await embedder.embed(ds.faqs.map((f) => normalizeQuery(f.question)));
  const rephrased = await embedder.embed(ds.queries.map((q) => normalizeQuery(q.text)));
  const indexOf = new Map(ds.faqs.map((f, i) => [f.id, i]));
  for (const size of SIZES) {
    // A size of the set or more: the whole set, each FAQ's question asked against the others.
    const whole = size >= ds.faqs.length;
    const k = Math.min(size, ds.faqs.length);
    for (const c of CALIBRATIONS) {
      const random = generator(k * 7919 + 17);
      const tally = { asked: 0, wronglyBlocked: 0, rephrasings: 0, blocked: 0, right: 0 };
      for (let draw = 0; draw < (whole ? 1 : DRAWS); draw++) {
        const program = ds.faqs
          .map((_, i) => [random(), i] as const)
          .sort((a, b) => a[0] - b[0])
          .slice(0, k)
          .map(([, i]) => i);
        const inProgram = new Set(program);
        const candidates = (v: readonly number[], leftOut = -1) =>
          program
            .filter((j) => j !== leftOut)
            .map((j) => ({
              id: String(j),
              title: (ds.faqs[j] as Dataset['faqs'][number]).question,
              vectorScore: rescaled(cosineSimilarity(v as number[], docs[j] as number[]), c),
            }))
            .sort((a, b) => b.vectorScore - a.vectorScore)
            .slice(0, PER_LIST);
        for (const [i, f] of ds.faqs.entries()) {
          if (inProgram.has(i) && !whole) continue;
          tally.asked++;
          if (pickDuplicate(normalizeQuery(f.question), candidates(asked[i] as number[], i))) tally.wronglyBlocked++;
        }
        for (const [qi, q] of ds.queries.entries()) {
          const want = indexOf.get(q.faqId) as number;
          if (!inProgram.has(want)) continue;
          tally.rephrasings++;
          const picked = pickDuplicate(normalizeQuery(q.text), candidates(rephrased[qi] as number[]));
          if (picked) {
            tally.blocked++;
            if (picked.id === String(want)) tally.right++;
          }
        }
      }
      console.log(
        `| ${ds.name} | ${whole ? `${k} (all)` : k} | ${c} | ${pct(tally.wronglyBlocked, tally.asked)} % | ${pct(tally.blocked, tally.rephrasings)} % / ${pct(tally.right, tally.blocked)} % |`,
      );
    }
  }
}
