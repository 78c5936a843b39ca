/**
 * The API under test, in its own process so its peak RSS is its own: the real app over the bench
 * database, plus a bare hello-world Fastify server as the throughput ceiling of this machine and
 * runtime. Prints {"api":port,"hello":port,"rss":{...}} when ready (resident memory in MB before and
 * after the embedder's model is loaded); on SIGTERM prints {"maxRssMb":...}. GET /cpu on the
 * hello-world port answers the process's CPU time.
 */
import { createCoreContext, createLogger, loadConfig, MemoryJobQueue } from '@cfaq/core';
import { createPool } from '@cfaq/db';
import Fastify from 'fastify';
import { buildApp } from '../../apps/api/src/app.js';

const config = loadConfig({
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATABASE_URL: process.env.BENCH_URL,
  JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0123456789',
  // Production refuses a key of one byte repeated.
  ENCRYPTION_KEY: '0123456789abcdef'.repeat(4),
  MIGRATE_ON_START: 'false',
  // Lifted so load runs measure the app, not the limiter's 429s.
  RATE_LIMIT_USER_BURST_MAX: '10000000',
});
const log = createLogger({ level: 'warn' });
const pool = createPool({ connectionString: config.DATABASE_URL as string, max: config.DATABASE_POOL_MAX });
const ctx = createCoreContext({ config, log, pool, jobs: new MemoryJobQueue() });
const app = await buildApp({ ctx, logger: false });
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const rssBeforeModel = mb(process.memoryUsage().rss);
// The model the API keeps loaded once per process (the sentence encoder by default), loaded here so
// the figure below is the API's resident memory with it, before any load run.
await ctx.embedder.warm();
const rss = { beforeModel: rssBeforeModel, withModel: mb(process.memoryUsage().rss), model: ctx.embedder.model };
await app.listen({ host: '127.0.0.1', port: 0 });
const hello = Fastify({ logger: false });
hello.get('/hello', async () => ({ hello: 'world' }));
// This process's CPU time so far (µs), read around each load run: the share of a run the load generator
// leaves the server idle shows how much of a throughput figure is the server's own limit.
hello.get('/cpu', async () => process.cpuUsage());
await hello.listen({ host: '127.0.0.1', port: 0 });
const port = (a: ReturnType<typeof app.server.address>) => (typeof a === 'object' && a ? a.port : 0);
console.log(JSON.stringify({ api: port(app.server.address()), hello: port(hello.server.address()), rss }));

process.on('SIGTERM', async () => {
  await app.close();
  await hello.close();
  await pool.end();
  console.log(JSON.stringify({ maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
  process.exit(0);
});
