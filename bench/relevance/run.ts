/**
 * `npm run bench:relevance`: how well POST /search ranks the FAQ a user wants, on hand-written English
 * FAQ sets with real-style rephrasings (bench/relevance/data/*.json: paraphrases, terse keyword
 * searches and conversational questions, some with typos), beside a BM25 reference over the same FAQs.
 *
 * For each data set it creates a fresh database (BENCH_RELEVANCE_DATABASE, default
 * community_faq_relevance), migrates it, stores the FAQs with the embeddings the embed-row job would
 * compute, and ranks every query through the statement POST /search runs (runHybridSearch with its
 * defaults), in two states: `fresh` (word statistics not yet collected, as right after content is
 * written) and `analyzed` (after ANALYZE and the search.lexeme-stats job). It prints P@1 and MRR@5 of
 * the fused ranking, of its keyword and vector lists alone, and of BM25 (k1 1.2, b 0.75; PostgreSQL's
 * English parser and stemmer, so every system sees the same words) over question + answer and over the
 * question alone, overall and per query kind.
 * Env: BENCH_SERVER_URL, BENCH_RELEVANCE_DATA (comma list of data set names; all by default),
 * BENCH_RELEVANCE_MISSES=1 to list the queries the fused ranking misses.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  buildHybridSql,
  createEmbedder,
  createLogger,
  DEFAULT_TEXT_TUNING,
  DUPLICATE_THRESHOLD,
  embeddingText,
  HYBRID_SEARCH_SOURCES,
  keywordQuery,
  loadConfig,
  normalizeQuery,
  pickDuplicate,
  runHybridSearch,
  runHybridStatement,
  type SearchMode,
} from '@cfaq/core';
import { runMigrations } from '@cfaq/db';
import pg from 'pg';
// An unreachable BENCH_SERVER_URL is one line, not a stack.
import '../shared.js';
import { type Dataset, datasetNames, readDataset, selectedDatasets } from './datasets.js';

const SERVER_URL = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = process.env.BENCH_RELEVANCE_DATABASE ?? 'community_faq_relevance';
const SHOW_MISSES = process.env.BENCH_RELEVANCE_MISSES === '1';
const out = (s: string) => console.log(s);

/** Rank (1-based) of the wanted id among at most 5 results, or null. */
type Ranked = (q: Dataset['queries'][number], normalized: string) => Promise<(string | null)[]>;

interface Score {
  n: number;
  p1: number;
  mrr: number;
  hit: number;
}

function score(ranks: (number | null)[]): Score {
  const n = ranks.length;
  return {
    n,
    p1: ranks.filter((r) => r === 1).length / n,
    mrr: ranks.reduce<number>((s, r) => s + (r !== null && r <= 5 ? 1 / r : 0), 0) / n,
    hit: ranks.filter((r) => r !== null && r <= 5).length / n,
  };
}

async function freshDatabase(): Promise<pg.Pool> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${DB}"`);
  await admin.end();
  const u = new URL(SERVER_URL);
  u.pathname = `/${DB}`;
  const pool = new pg.Pool({ connectionString: u.toString(), max: 4 });
  await runMigrations(pool);
  return pool;
}

/** BM25 over PostgreSQL's English lexemes of each FAQ's question (+ answer), top 5. */
async function bm25(pool: pg.Pool, programId: string, withAnswer: boolean) {
  const text = withAnswer ? "question || ' ' || answer" : 'question';
  const { rows } = await pool.query<{ id: string; lexeme: string; tf: number }>(
    `SELECT f.id, u.lexeme, cardinality(u.positions) AS tf
     FROM faqs f, unnest(to_tsvector('english', ${text})) u WHERE f.batch_id = $1`,
    [programId],
  );
  const docs = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const d = docs.get(r.id) ?? new Map<string, number>();
    docs.set(r.id, d);
    d.set(r.lexeme, r.tf);
  }
  const df = new Map<string, number>();
  const len = new Map<string, number>();
  for (const [id, d] of docs) {
    let l = 0;
    for (const [lex, tf] of d) {
      df.set(lex, (df.get(lex) ?? 0) + 1);
      l += tf;
    }
    len.set(id, l);
  }
  const n = docs.size;
  const avg = [...len.values()].reduce((a, b) => a + b, 0) / n;
  const k1 = 1.2;
  const b = 0.75;
  return async (query: string): Promise<string[]> => {
    const q = await pool.query<{ lexeme: string }>(`SELECT lexeme FROM unnest(to_tsvector('english', $1))`, [query]);
    const scored: [string, number][] = [];
    for (const [id, d] of docs) {
      let s = 0;
      for (const { lexeme } of q.rows) {
        const tf = d.get(lexeme);
        if (!tf) continue;
        const idf = Math.log(1 + (n - (df.get(lexeme) ?? 0) + 0.5) / ((df.get(lexeme) ?? 0) + 0.5));
        s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * (len.get(id) as number)) / avg));
      }
      if (s > 0) scored.push([id, s]);
    }
    scored.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    return scored.slice(0, 5).map(([id]) => id);
  };
}

async function evaluate(ds: Dataset, systems: Record<string, Ranked>, idOf: Map<string, string>) {
  const kinds = [...new Set(ds.queries.map((q) => q.kind))].sort();
  const ranks: Record<string, Record<string, (number | null)[]>> = {};
  const misses: string[] = [];
  for (const q of ds.queries) {
    const normalized = normalizeQuery(q.text);
    const want = idOf.get(q.faqId);
    for (const [name, rank] of Object.entries(systems)) {
      const ids = await rank(q, normalized);
      const at = ids.indexOf(want as string);
      const r = at < 0 ? null : at + 1;
      ranks[name] ??= { all: [] };
      const byKind = ranks[name] as Record<string, (number | null)[]>;
      byKind.all?.push(r);
      byKind[q.kind] = [...(byKind[q.kind] ?? []), r];
      if (name === 'fused' && r !== 1) misses.push(`  ${r ?? '-'}  [${q.kind}] ${q.text}  (wanted ${q.faqId})`);
    }
  }
  const fmt = (s: Score) => `${(100 * s.p1).toFixed(1)} / ${(100 * s.mrr).toFixed(1)} / ${(100 * s.hit).toFixed(1)}`;
  out(`| system | all (${ds.queries.length}) | ${kinds.map((k) => `${k} (${ranks.fused?.[k]?.length ?? 0})`).join(' | ')} |`);
  out(`|---|---|${kinds.map(() => '---').join('|')}|`);
  for (const name of Object.keys(systems)) {
    const byKind = ranks[name] as Record<string, (number | null)[]>;
    out(`| ${name} | ${fmt(score(byKind.all ?? []))} | ${kinds.map((k) => fmt(score(byKind[k] ?? []))).join(' | ')} |`);
  }
  if (SHOW_MISSES) out(`fused misses (rank, kind, query):\n${misses.join('\n')}`);
}

/**
 * The duplicate check on every query of the set (each is a rephrasing of an existing FAQ, so each
 * block is right when it names that FAQ): the service's rule (pickDuplicate: the nearest FAQ's
 * vectorScore, as the search reports it, >= 0.82 and ahead of the next question by the margin, or a
 * question asked word for word) beside the spec's plain rule (the threshold alone), per query kind.
 */
async function duplicateRules(
  ds: Dataset,
  idOf: Map<string, string>,
  embed: (text: string) => Promise<number[]>,
  nearest: (normalized: string, vector: number[]) => Promise<{ id: string; title: string; vectorScore: number }[]>,
) {
  type Tally = { n: number; blocked: number; right: number };
  const tally = new Map<string, Tally>();
  const count = (rule: string, blocked: string | null, want: string | undefined) => {
    const t = tally.get(rule) ?? { n: 0, blocked: 0, right: 0 };
    tally.set(rule, t);
    t.n++;
    if (blocked) t.blocked++;
    if (blocked && blocked === want) t.right++;
  };
  const wrong: string[] = [];
  for (const q of ds.queries) {
    const normalized = normalizeQuery(q.text);
    const rows = await nearest(normalized, await embed(normalized));
    const want = idOf.get(q.faqId);
    const top = rows.reduce<(typeof rows)[number] | undefined>((a, c) => (a && a.vectorScore >= c.vectorScore ? a : c), undefined);
    const plain = top && top.vectorScore >= DUPLICATE_THRESHOLD ? top.id : null;
    const picked = pickDuplicate(normalized, rows);
    for (const kind of ['all', q.kind]) {
      count(`the service, ${kind}`, picked?.id ?? null, want);
      count(`the threshold alone, ${kind}`, plain, want);
    }
    if (picked && picked.id !== want) wrong.push(`${picked.vectorScore.toFixed(3)} ${q.kind}: "${q.text}" -> "${picked.title}"`);
  }
  out('\n### duplicate check (every query is a rephrasing of one FAQ)\n');
  out(`| rule, queries | blocked | precision |\n|---|---|---|`);
  for (const [rule, r] of [...tally].sort(([a], [b]) => a.localeCompare(b))) {
    out(`| ${rule} | ${((100 * r.blocked) / r.n).toFixed(1)} % | ${r.blocked ? `${((100 * r.right) / r.blocked).toFixed(1)} %` : '-'} |`);
  }
  if (SHOW_MISSES) out(`wrong blocks of the service's rule (vectorScore, kind, query -> the FAQ named):\n${wrong.join('\n')}`);
}

/**
 * Questions of another subject (the other sets' queries): none was written for an FAQ here, so a
 * block of the duplicate check stops a new question (a few ask the same thing in the other help
 * centre's words: "delete account"), and what POST /search still returns is what the spec's fixed
 * filter (textScore > 0 or vectorScore >= 0.80) lets through. The calibration moves both.
 */
async function newQuestions(
  queries: Dataset['queries'],
  embed: (text: string) => Promise<number[]>,
  nearest: (normalized: string, vector: number[]) => Promise<{ id: string; title: string; vectorScore: number }[]>,
  search: Ranked,
) {
  let blocked = 0;
  let shown = 0;
  let none = 0;
  const wrong: string[] = [];
  for (const q of queries) {
    const normalized = normalizeQuery(q.text);
    const picked = pickDuplicate(normalized, await nearest(normalized, await embed(normalized)));
    if (picked) {
      blocked++;
      wrong.push(`${picked.vectorScore.toFixed(3)} ${q.kind}: "${q.text}" -> "${picked.title}"`);
    }
    const results = await search(q, normalized);
    shown += results.length;
    if (results.length === 0) none++;
  }
  const n = queries.length;
  out(`\n### new questions (the other sets' ${n} queries: another subject, no FAQ here answers them)\n`);
  out('| duplicate check blocks | POST /search results a query (of 5) | queries with no result |\n|---|---|---|');
  out(`| ${((100 * blocked) / n).toFixed(1)} % | ${(shown / n).toFixed(2)} | ${((100 * none) / n).toFixed(1)} % |`);
  if (SHOW_MISSES) out(`blocks (vectorScore, kind, query -> the FAQ named):\n${wrong.join('\n')}`);
}

async function runDataset(ds: Dataset) {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
  const embedder = createEmbedder(config, createLogger({ level: 'warn' }));
  const pool = await freshDatabase();
  try {
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM batches WHERE is_default LIMIT 1');
    const programId = (rows[0] as { id: string }).id;
    // BENCH_EMBED_CACHE=file: vectors kept across runs (per model and text), so reruns while tuning
    // the SQL skip the encoder.
    const cacheFile = process.env.BENCH_EMBED_CACHE ? `${process.env.BENCH_EMBED_CACHE}.${embedder.model}.json` : null;
    const vectorOf = new Map<string, number[]>(cacheFile && existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : []);
    const docTexts = ds.faqs.map((f) => embeddingText('faqs', f.question, f.answer));
    const missing = docTexts.filter((x) => !vectorOf.has(x));
    for (const [i, v] of (await embedder.embed(missing)).entries()) vectorOf.set(missing[i] as string, v);
    const vectors = docTexts.map((x) => vectorOf.get(x) as number[]);
    const inserted = await pool.query<{ id: string }>(
      `INSERT INTO faqs (batch_id, question, answer, category, review_status, embedding, embedded_at)
       SELECT $1, q, a, c, 'approved', e::vector, now()
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS t(q, a, c, e, n) ORDER BY n
       RETURNING id`,
      [
        programId,
        ds.faqs.map((f) => f.question),
        ds.faqs.map((f) => f.answer),
        ds.faqs.map((f) => f.category),
        vectors.map((v) => `[${v.join(',')}]`),
      ],
    );
    const idOf = new Map(ds.faqs.map((f, i) => [f.id, (inserted.rows[i] as { id: string }).id]));
    const embed = async (text: string) => {
      const v = vectorOf.get(text) ?? ((await embedder.embed([text]))[0] as number[]);
      vectorOf.set(text, v);
      return v;
    };
    const hybrid =
      (modes: SearchMode[], filter = true, extra: Record<string, unknown> = {}): Ranked =>
      async (_q, normalized) =>
        (
          await runHybridSearch(pool, {
            query: normalized,
            embedding: modes.includes('vector') ? await embed(normalized) : null,
            programId,
            // POST /search's sources (FAQs, posts and the knowledge tables; only FAQs hold rows here).
            sources: HYBRID_SEARCH_SOURCES,
            modes,
            filter,
            ...extra,
          })
        ).map((r) => r.id);
    // The keyword list scoring every row that shares a word (the benchmark's tuning, not production's).
    const unboundedKeywordSql = buildHybridSql(
      { sources: HYBRID_SEARCH_SOURCES, modes: ['text'] },
      { ...DEFAULT_TEXT_TUNING, bounded: false },
    );
    const bmQa = await bm25(pool, programId, true);
    const bmQ = await bm25(pool, programId, false);
    const systems: Record<string, Ranked> = {
      fused: hybrid(['vector', 'text']),
      'keyword list': hybrid(['text']),
      'keyword list unbounded': async (_q, normalized) =>
        (
          await runHybridStatement(pool, { text: unboundedKeywordSql }, { query: keywordQuery(normalized), embedding: null, programId })
        ).map((r) => r.id),
      'vector list (unfiltered)': hybrid(['vector'], false),
      'BM25 question + answer': (q) => bmQa(q.text),
      'BM25 question': (q) => bmQ(q.text),
    };
    out(`\n## ${ds.name}: ${ds.faqs.length} FAQs, ${ds.queries.length} queries; P@1 / MRR@5 / Hit@5 (embedder ${embedder.model})`);
    out('\n### fresh (no word statistics yet)\n');
    await evaluate(ds, systems, idOf);
    await pool.query('ANALYZE faqs');
    await pool.query('REFRESH MATERIALIZED VIEW search_lexeme_stats');
    out('\n### analyzed (ANALYZE + search.lexeme-stats)\n');
    await evaluate(ds, systems, idOf);
    const nearest = async (normalized: string, vector: number[]) =>
      runHybridSearch(pool, { query: normalized, embedding: vector, programId, sources: ['faq'], modes: ['vector'], filter: false });
    await duplicateRules(ds, idOf, embed, nearest);
    await newQuestions(otherQueries(ds.name), embed, nearest, systems.fused as Ranked);
    if (cacheFile) writeFileSync(cacheFile, JSON.stringify([...vectorOf]));
  } finally {
    await pool.end();
  }
}

const datasets = datasetNames().map(readDataset);
const selected = new Set(selectedDatasets().map((d) => d.name));
/** Every query of the sets other than `name`. */
const otherQueries = (name: string) => datasets.filter((d) => d.name !== name).flatMap((d) => d.queries);
for (const ds of datasets) {
  if (!selected.has(ds.name)) continue;
  await runDataset(ds);
}
