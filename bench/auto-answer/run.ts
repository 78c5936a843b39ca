/**
 * Auto-answer throughput: one run over 200 eligible posts against a fake OpenAI server that takes
 * 500 ms per answer, with the default batch size (20 per claim) and AUTO_ANSWER_CONCURRENCY
 * (default 10) provider calls in flight. Target: <= 30 s. Prints the figures.
 *
 *   npm run bench:auto-answer
 *
 * Env: BENCH_POSTS (200), BENCH_DELAY_MS (500), AUTO_ANSWER_CONCURRENCY, BENCH_SERVER_URL,
 * BENCH_DATABASE (community_faq_bench_auto_answer; dropped and created anew).
 */
import { createCoreContext, createLogger, loadConfig, MemoryJobQueue, runAutoAnswer } from '@cfaq/core';
import { createPool, runMigrations } from '@cfaq/db';
import { startFakeOpenAI } from '@cfaq/testkit/fakes/ai/openai';
import pg from 'pg';
import { benchInt } from '../shared.js';

const POSTS = benchInt('BENCH_POSTS', 200);
const DELAY = benchInt('BENCH_DELAY_MS', 500, 0);
const SERVER = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = process.env.BENCH_DATABASE ?? 'community_faq_bench_auto_answer';
const url = (() => {
  const u = new URL(SERVER);
  u.pathname = `/${DB}`;
  return u.toString();
})();

const admin = new pg.Client({ connectionString: SERVER });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${DB}"`);
await admin.end();

const pool = createPool({ connectionString: url, max: 10 });
await runMigrations(pool);
const fake = await startFakeOpenAI();
fake.delayMs = DELAY;
fake.reply = () => ({ answer: 'A generated answer.', answerable: true });
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: url,
  ENCRYPTION_KEY: '0123456789abcdef'.repeat(4),
  JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0123456789',
  OPENAI_API_KEY: fake.apiKey,
  OPENAI_BASE_URL: fake.baseUrl,
  OLLAMA_HOST: undefined,
  EMBEDDER: 'local',
});
const ctx = createCoreContext({ config, pool, jobs: new MemoryJobQueue(), log: createLogger({ level: 'silent' }) });
const { rows } = await pool.query<{ id: string }>('SELECT id FROM batches WHERE is_default');
const program = rows[0]?.id;
await pool.query(
  `INSERT INTO community_posts (batch_id, title, body, created_at)
   SELECT $1, 'Benchmark question ' || g, 'How do I do thing number ' || g || ' in the program?', now() - interval '3 hours'
     FROM generate_series(1, $2) g`,
  [program, POSTS],
);
await ctx.embedder.warm();

const started = performance.now();
const report = await runAutoAnswer(ctx, { trigger: 'admin', all: true });
const seconds = (performance.now() - started) / 1000;
console.log(
  JSON.stringify(
    {
      posts: POSTS,
      providerDelayMs: DELAY,
      batchSize: config.AUTO_ANSWER_BATCH_SIZE,
      concurrency: config.AUTO_ANSWER_CONCURRENCY,
      processed: report.processed,
      counts: report.counts,
      providerCalls: fake.calls.length,
      maxInFlight: fake.maxInFlight,
      seconds: Math.round(seconds * 100) / 100,
      target: '<= 30 s',
      pass: seconds <= 30 && report.processed === POSTS,
    },
    null,
    2,
  ),
);
await fake.close();
await pool.end();
