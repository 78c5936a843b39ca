/**
 * Dashboard and leaderboard benchmark: seeds `bench_analytics` (or BENCH_DATABASE_URL) with set-based
 * SQL at the sizes (100,000 posts, 1,000,000 search-log rows, 100,000 users, 1,000,000
 * reputation-log rows), runs the analytics rollup once as the worker would, then calls every
 * dashboard route through the real app (`inject`, an admin token) and prints p50 / p99 per route.
 *
 * Sizes: BENCH_USERS, BENCH_POSTS, BENCH_COMMENTS, BENCH_FAQS, BENCH_SEARCH_LOGS, BENCH_REPUTATION_LOGS;
 * BENCH_ITERATIONS (default 40 per dashboard, 5x that for the leaderboard); BENCH_REUSE=1 keeps an
 * already seeded database; BENCH_ONLY=/analytics/search,/reputation runs only routes starting so.
 */
import { compactCounts, createCoreContext, createLogger, loadConfig, MemoryJobQueue, rollUpCommunity, rollUpSearchLogs } from '@cfaq/core';
import { runMigrations } from '@cfaq/db';
import pg from 'pg';
import { buildApp } from '../../apps/api/src/app.js';
import { benchFailed, benchInt } from '../shared.js';
import { seed } from './seed.js';

const SERVER = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'bench_analytics';
const env = (name: string, fallback: number) => benchInt(name, fallback);
const sizes = {
  users: env('BENCH_USERS', 100_000),
  posts: env('BENCH_POSTS', 100_000),
  comments: env('BENCH_COMMENTS', 200_000),
  faqs: env('BENCH_FAQS', 10_000),
  searchLogs: env('BENCH_SEARCH_LOGS', 1_000_000),
  reputationLogs: env('BENCH_REPUTATION_LOGS', 1_000_000),
  days: 365,
};
const ITER = env('BENCH_ITERATIONS', 40);
const log = (msg: string) => console.log(msg);

async function database(): Promise<{ url: string; fresh: boolean }> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, fresh: process.env.BENCH_REUSE !== '1' };
  const url = new URL(SERVER);
  url.pathname = `/${DB}`;
  if (process.env.BENCH_REUSE === '1') return { url: url.toString(), fresh: false };
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  return { url: url.toString(), fresh: true };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

async function main() {
  const { url, fresh } = await database();
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await runMigrations(pool);
  if (fresh) {
    log(`seeding ${JSON.stringify(sizes)}`);
    await seed(pool, sizes, log);
  } else {
    // A reused database: roll every day up again (a new rollup column or index starts complete).
    await pool.query(`delete from analytics_rollups where name in ('search', 'community')`);
  }
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: url,
    JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0123456789',
    ENCRYPTION_KEY: '0123456789abcdef'.repeat(4),
    RATE_LIMIT_USER_BURST_MAX: '10000000',
    EMBEDDER: 'local',
  });
  const ctx = createCoreContext({ config, pool, jobs: new MemoryJobQueue(), log: createLogger({ level: 'silent' }) });
  let t0 = performance.now();
  const rolled = await rollUpSearchLogs(ctx);
  log(`analytics rollup (first run, ${rolled.days} days): ${Math.round(performance.now() - t0)} ms`);
  t0 = performance.now();
  await rollUpSearchLogs(ctx);
  log(`analytics rollup (an hourly run: yesterday again): ${Math.round(performance.now() - t0)} ms`);
  t0 = performance.now();
  const community = await rollUpCommunity(ctx);
  log(`community rollup (first run, ${community.days} days): ${Math.round(performance.now() - t0)} ms`);
  t0 = performance.now();
  const folded = await compactCounts(ctx);
  log(`kept counts folded (${folded.users} account rows, ${folded.points} points rows): ${Math.round(performance.now() - t0)} ms`);
  // Edits to old posts since the last run (answers, deletions) leave their days marked: ten changed days
  // the next run recomputes, and five more the dashboards below read live (as between two runs).
  const markDays = (n: number) =>
    pool.query(`insert into analytics_dirty_days (day)
      select current_date - (17 * g) % 360 - 2 from generate_series(1, ${n}) g`);
  await markDays(10);
  t0 = performance.now();
  const again = await rollUpCommunity(ctx);
  log(`community rollup (an hourly run: ${again.dirty} changed days): ${Math.round(performance.now() - t0)} ms`);
  await markDays(5);
  // As autovacuum would after the rollup's writes: fresh statistics, and a visibility map for index-only scans.
  for (const table of [
    'search_daily_stats',
    'search_query_daily',
    'community_daily_stats',
    'signup_daily_stats',
    'user_daily_activity',
    'user_active_days',
    'user_activity_totals',
    'answer_time_daily',
    'user_counts',
    'reputation_point_counts',
  ]) {
    await pool.query(`vacuum analyze ${table}`);
  }

  const app = await buildApp({ ctx, logger: false });
  await app.ready();
  const { rows } = await pool.query<{ id: string }>(`select id from users where role = 'admin' order by id limit 1`);
  const headers = { authorization: `Bearer ${app.issueAccessToken(rows[0]?.id as string)}` };
  const { rows: progs } = await pool.query<{ id: string }>('select id from batches where not is_default order by name limit 1');
  const prog = progs[0]?.id as string;
  const today = new Date().toISOString().slice(0, 10);
  const yearAgo = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
  const year = `from=${yearAgo}&to=${today}&interval=week`;

  const routes: [string, number][] = [];
  for (const base of [
    '/analytics/overview',
    '/analytics/search',
    '/analytics/community',
    '/admin/stats',
    '/admin/faqs?freshness=due&sort=reviewDue',
    '/admin/faqs/growth',
    '/admin/community',
    '/admin/community/chart',
    '/admin/search/insights',
    '/admin/user-activity',
    '/admin/community-growth',
  ]) {
    const sep = base.includes('?') ? '&' : '?';
    routes.push([base, ITER], [`${base}${sep}batchId=${prog}`, ITER]);
    if (base === '/analytics/overview') routes.push([`${base}${sep}${year.replace('&interval=week', '')}`, ITER]);
    else if (!base.startsWith('/admin/stats') && !base.startsWith('/admin/faqs?')) routes.push([`${base}${sep}${year}`, ITER]);
  }
  for (const period of ['all', 'month', 'week']) routes.push([`/reputation/leaderboard?period=${period}`, ITER * 5]);
  routes.push([`/reputation/leaderboard?period=all&batchId=${prog}&page=50`, ITER * 5]);

  console.log('\n| route (30 days unless a range is given) | p50 ms | p99 ms | n |\n|---|---|---|---|');
  const only = process.env.BENCH_ONLY;
  for (const [path, n] of routes.filter(([p]) => !only || only.split(',').some((o) => p.startsWith(o)))) {
    const url = `/api${path}`;
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: 'GET', url, headers });
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    }
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = performance.now();
      const res = await app.inject({ method: 'GET', url, headers });
      times.push(performance.now() - s);
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
    }
    times.sort((a, b) => a - b);
    const shown = path
      .replace(prog, '<program>')
      .replace(year, 'from=<a year>&interval=week')
      .replace(year.replace('&interval=week', ''), 'from=<a year>');
    console.log(`| ${shown} | ${pct(times, 50).toFixed(1)} | ${pct(times, 99).toFixed(1)} | ${n} |`);
  }
  const load = (await import('node:os')).loadavg()[0]?.toFixed(1);
  console.log(`\nload average (1 min) at the end: ${load}`);
  await app.close();
  await pool.end();
}

main().catch(benchFailed);
