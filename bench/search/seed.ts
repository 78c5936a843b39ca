import { createHash } from 'node:crypto';
import { embeddingText, embedText, refreshLexemeStats } from '@cfaq/core';
import { runMigrations } from '@cfaq/db';
import pg from 'pg';
import { Corpus } from './corpus.js';

export const BENCH_DB = process.env.BENCH_DATABASE ?? 'community_faq_bench';
export const SERVER_URL = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);

export function benchUrl(): string {
  const u = new URL(SERVER_URL);
  u.pathname = `/${BENCH_DB}`;
  return u.toString();
}

const vec = (text: string) =>
  `[${embedText(text)
    .map((x) => Math.round(x * 1e5) / 1e5)
    .join(',')}]`;

/** The search indexes, dropped while loading and rebuilt after from the migrations' own definitions. */
const INDEXES = [
  'faqs_embedding_hnsw_idx',
  'faqs_search_vector_idx',
  'community_posts_embedding_hnsw_idx',
  'community_posts_search_vector_idx',
  'faqs_title_tsv_idx',
  'community_posts_title_tsv_idx',
] as const;

/**
 * What the seeded data depends on besides the migrations: size, corpus and the embedding rule. A
 * database seeded under another fingerprint is reseeded (schema changes arrive through migrations).
 */
function fingerprint(): string {
  const probe = {
    rows: ROWS,
    corpus: new Corpus(42).faq(),
    faq: embeddingText('faqs', 'question', 'answer'),
    post: embeddingText('community_posts', 'title', 'body'),
    // Whole vectors, of English and of the corpus's own words: any change of the embedder shows.
    vector: embedText('fingerprint probe of the local embedder'),
    corpusVector: (() => {
      const f = new Corpus(42).faq();
      return embedText(embeddingText('faqs', f.question, f.answer));
    })(),
  };
  return createHash('sha256').update(JSON.stringify(probe)).digest('hex').slice(0, 16);
}

/** Creates the bench database if missing, migrates it, and loads ROWS FAQs and ROWS posts (once). */
export async function seed(log: (s: string) => void): Promise<{ programId: string; seededMs: number | null }> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [BENCH_DB]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${BENCH_DB}"`);
  await admin.end();

  // Index builds (seeding, or a migration that rebuilds an index) get memory and parallel workers.
  const pool = new pg.Pool({
    connectionString: benchUrl(),
    max: 4,
    options: '-c maintenance_work_mem=2GB -c max_parallel_maintenance_workers=2',
  });
  try {
    await runMigrations(pool);
    const { rows } = await pool.query<{ id: string }>('select id from batches where is_default limit 1');
    const programId = rows[0]?.id;
    if (!programId) throw new Error('no default program');
    const counts = await pool.query<{ f: number; p: number }>(
      'select (select count(*) from faqs)::int f, (select count(*) from community_posts)::int p',
    );
    const c = counts.rows[0] as { f: number; p: number };
    await pool.query('CREATE TABLE IF NOT EXISTS bench_meta (key text PRIMARY KEY, value text NOT NULL)');
    const print = fingerprint();
    const stored = await pool.query<{ value: string }>("SELECT value FROM bench_meta WHERE key = 'fingerprint'");
    if (c.f >= ROWS && c.p >= ROWS && stored.rows[0]?.value === print) {
      // The search weights' copy of the statistics, as the worker keeps it (search.lexeme-stats).
      await refreshLexemeStats({ pool });
      log(`bench database ${BENCH_DB} already holds ${c.f} FAQs and ${c.p} posts; not reseeding`);
      return { programId, seededMs: null };
    }
    if (c.f > 0) log(`bench database ${BENCH_DB} was seeded under another fingerprint (size, corpus or embedding rule); reseeding`);
    const start = performance.now();
    const defs = await pool.query<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)',
      [INDEXES],
    );
    if (defs.rowCount !== INDEXES.length) throw new Error(`the migrations should define ${INDEXES.join(', ')}`);
    await pool.query('TRUNCATE faqs, community_posts CASCADE');
    for (const name of INDEXES) await pool.query(`DROP INDEX ${name}`);
    const corpus = new Corpus(42);
    const BATCH = 1000;
    for (let done = 0; done < ROWS; done += BATCH) {
      const q: string[] = [];
      const a: string[] = [];
      const e: string[] = [];
      for (let i = 0; i < BATCH; i++) {
        const f = corpus.faq();
        q.push(f.question);
        a.push(f.answer);
        e.push(vec(embeddingText('faqs', f.question, f.answer)));
      }
      await pool.query(
        `INSERT INTO faqs (batch_id, question, answer, embedding, embedded_at)
         SELECT $1, q, a, e::vector, now() FROM unnest($2::text[], $3::text[], $4::text[]) AS t(q, a, e)`,
        [programId, q, a, e],
      );
      const t: string[] = [];
      const b: string[] = [];
      const pe: string[] = [];
      for (let i = 0; i < BATCH; i++) {
        const p = corpus.post();
        t.push(p.title);
        b.push(p.body);
        pe.push(vec(embeddingText('community_posts', p.title, p.body)));
      }
      await pool.query(
        `INSERT INTO community_posts (batch_id, title, body, embedding, embedded_at)
         SELECT $1, t, b, e::vector, now() FROM unnest($2::text[], $3::text[], $4::text[]) AS x(t, b, e)`,
        [programId, t, b, pe],
      );
      if ((done + BATCH) % 20_000 === 0) log(`  loaded ${done + BATCH} FAQs + ${done + BATCH} posts`);
    }
    for (const d of defs.rows) {
      log(`  building ${d.indexdef.replace(/^CREATE INDEX \S+ ON \S+\./, '')}`);
      await pool.query(d.indexdef);
    }
    await pool.query('VACUUM ANALYZE faqs');
    await pool.query('VACUUM ANALYZE community_posts');
    await refreshLexemeStats({ pool });
    await pool.query(
      "INSERT INTO bench_meta (key, value) VALUES ('fingerprint', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [print],
    );
    return { programId, seededMs: performance.now() - start };
  } finally {
    await pool.end();
  }
}
