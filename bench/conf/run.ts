/**
 * Conf benchmark: (1) webhook acknowledgement over HTTP (signature check + ingestion job committed by
 * pg-boss) with autocannon; (2) worker time to parse and store a two-hour transcript (~20,000 words):
 * VTT parse, knowledge chunks embedded by the local embedder, the completing transaction (no AI
 * provider configured, so path A's call is aside). Database: BENCH_DATABASE_URL or a fresh
 * `bench_conf` on the local server.
 */
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  BossJobQueue,
  createCoreContext,
  createLogger,
  ensureQueues,
  JOBS,
  loadConfig,
  parseTranscript,
  storeTranscript,
  tensorflow,
  useSentenceKernels,
} from '@cfaq/core';
import { runMigrations } from '@cfaq/db';
import { confMeetings } from '@cfaq/db/schema/index';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { buildApp } from '../../apps/api/src/app.js';
import { benchFailed, benchInt } from '../shared.js';

const SERVER = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'bench_conf';
const SECRET = 'bench-webhook-secret';
const DURATION = benchInt('BENCH_SECONDS', 10);
const CONNECTIONS = benchInt('BENCH_CONNECTIONS', 20);
/** `webhook`, `transcript` or both (default). */
const PART = process.env.BENCH_PART ?? 'all';
/** The machine's load average (1, 5, 15 minutes), printed with every figure: on a shared machine it decides what a figure means. */
const load = () => loadavg().map((l) => Number(l.toFixed(2)));

async function freshDatabase(): Promise<string> {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const url = new URL(SERVER);
  url.pathname = `/${DB}`;
  return url.toString();
}

function twoHourVtt(words = 20_000): string {
  const vocab =
    'the capstone deadline portal submit cohort mentor session laptop stipend library schedule project review grade team weekly office hours question answer'.split(
      ' ',
    );
  const lines = ['WEBVTT', ''];
  let t = 0;
  let w = 0;
  let i = 0;
  while (w < words) {
    const n = 8 + (i % 5);
    const text = Array.from({ length: n }, (_, k) => vocab[(i * 7 + k * 3) % vocab.length]).join(' ');
    const fmt = (s: number) => new Date(s * 1000).toISOString().slice(11, 23);
    lines.push(String(i + 1), `${fmt(t)} --> ${fmt(t + 3)}`, `Speaker ${i % 4}: ${text}`, '');
    t += 3;
    w += n;
    i++;
  }
  return lines.join('\n');
}

async function main() {
  const url = await freshDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await runMigrations(pool);
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: url,
    JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0123456789',
    ENCRYPTION_KEY: '0123456789abcdef'.repeat(4),
    CONF_WEBHOOK_SECRET_TOKEN: SECRET,
    RATE_LIMIT_USER_BURST_MAX: '10000000',
    // EMBEDDER=local to compare with the default sentence embedder.
    ...(process.env.EMBEDDER ? { EMBEDDER: process.env.EMBEDDER } : {}),
  });
  // The job queue's pool as an API process opens it (JOB_QUEUE_POOL_MAX), unless BENCH_BOSS_MAX says otherwise.
  const bossMax = benchInt('BENCH_BOSS_MAX', config.JOB_QUEUE_POOL_MAX);
  // Group commit of the acknowledgements' job inserts as an API process does it (JOB_SEND_BATCH_MAX), unless BENCH_BATCH_MAX says otherwise (1 = off).
  const batchMax = benchInt('BENCH_BATCH_MAX', config.JOB_SEND_BATCH_MAX);
  const boss = new PgBoss({ connectionString: url, schema: 'pgboss', max: bossMax, supervise: false, schedule: false });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss, JOBS);
  const log = createLogger({ level: 'silent' });
  const ctx = createCoreContext({ config, log, pool, jobs: new BossJobQueue(boss, { batchMax }) });

  console.log(JSON.stringify({ start: new Date().toISOString(), loadAverage: load(), embedder: ctx.embedder.model }));
  if (PART !== 'transcript') await webhookBench(ctx, boss, pool, bossMax, batchMax);
  if (PART !== 'webhook') await transcriptBench(ctx);
  await boss.stop({ graceful: false, close: true });
  await pool.end();
}

interface ClientResult {
  clientCpuSeconds: number;
  requests: number;
  reqPerSec: number;
  non2xx: number;
  errors: number;
  latency: { p50: number; p90: number; p99: number; max: number };
}

/** A CPU profile of this process (the API) for the client's run only: BENCH_CPU_PROFILE=file.cpuprofile. */
async function startProfile() {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    async stop(file: string) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/**
 * CPU seconds used so far by this database's PostgreSQL backends (the job inserts and their commits),
 * per pid, from /proc (the server runs on this machine): utime + stime, in clock ticks of 10 ms.
 */
async function backendCpu(pool: pg.Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // not visible (another machine, or the backend ended): not counted
    }
  }
  return out;
}
const cpuDelta = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, s]) => sum + s - (before.get(pid) ?? 0), 0);

/** p50 / p90 / p99 / max of a list of milliseconds, rounded to 0.1 ms. */
function quantiles(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1));
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
}

/** Runs the webhook client (webhook-client.ts) in its own process and returns autocannon's figures. */
function runClient(settings: { url: string; secret: string; duration: number; connections: number }): Promise<ClientResult> {
  const child = fork(join(import.meta.dirname, 'webhook-client.ts'), [], { execArgv: process.execArgv });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as ClientResult));
    child.once('error', reject);
    child.once('exit', (code) => code === 0 || reject(new Error(`webhook client exited with ${code}`)));
    child.send(settings);
  });
}

/** (1) webhook acknowledgement: the API in this process, the client in another (two cores, one each). */
async function webhookBench(ctx: ReturnType<typeof createCoreContext>, boss: PgBoss, pool: pg.Pool, bossMax: number, batchMax: number) {
  const app = await buildApp({ ctx, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const profile = process.env.BENCH_CPU_PROFILE ? await startProfile() : null;
  // How many INSERTs carried the acknowledgements' jobs (group commit: JOB_SEND_BATCH_MAX).
  let inserts = 0;
  const insert = boss.insert.bind(boss);
  const insertMs: number[] = [];
  boss.insert = async (...args: Parameters<typeof insert>) => {
    inserts++;
    const t0 = performance.now();
    try {
      return await insert(...args);
    } finally {
      insertMs.push(performance.now() - t0);
    }
  };
  const pg0 = await backendCpu(pool);
  const cpu0 = process.cpuUsage();
  const result = await runClient({
    url: `http://127.0.0.1:${port}/api/conf/webhook`,
    secret: SECRET,
    duration: DURATION,
    connections: CONNECTIONS,
  });
  const cpu = process.cpuUsage(cpu0);
  const pgCpu = cpuDelta(pg0, await backendCpu(pool));
  if (profile) await profile.stop(process.env.BENCH_CPU_PROFILE as string);
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'conf.ingest-recording'`);
  await app.close();
  console.log(
    JSON.stringify(
      {
        webhook: {
          connections: CONNECTIONS,
          bossPoolMax: bossMax,
          sendBatchMax: batchMax,
          requests: result.requests,
          non2xx: result.non2xx,
          errors: result.errors,
          reqPerSec: Math.round(result.reqPerSec),
          latencyMs: result.latency,
          jobsCommitted: rows[0].n,
          apiCpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
          // Group commit off (BENCH_BATCH_MAX=1): each job is its own send(), not counted here.
          jobInserts: batchMax > 1 ? inserts : null,
          // How long one INSERT and its commit took (the part of an acknowledgement's latency PostgreSQL adds).
          insertMs: batchMax > 1 ? quantiles(insertMs) : null,
          jobsPerInsert: batchMax > 1 ? Number((result.requests / Math.max(1, inserts)).toFixed(1)) : 1,
          clientCpuSeconds: result.clientCpuSeconds,
          postgresCpuSeconds: Number(pgCpu.toFixed(1)),
          postgresCpuMsPerRequest: Number(((pgCpu * 1e3) / Math.max(1, result.requests)).toFixed(3)),
          apiCpuMsPerRequest: Number(((cpu.user + cpu.system) / 1e3 / Math.max(1, result.requests)).toFixed(3)),
          loadAverage: load(),
        },
      },
      null,
      2,
    ),
  );
}

/**
 * (2) two-hour transcript: parse and store (worker time, no AI call). BENCH_COMPARE_KERNELS=1 also
 * runs each pass with TensorFlow.js's own WASM kernels (sentence-kernels.ts replaces two), the two
 * alternating so both see the same load.
 */
async function transcriptBench(ctx: ReturnType<typeof createCoreContext>) {
  const vtt = twoHourVtt();
  await ctx.embedder.warm();
  const compare = process.env.BENCH_COMPARE_KERNELS === '1' && ctx.embedder.model.startsWith('local-hash-use');
  const tf = compare ? await tensorflow() : null;
  const passes = compare ? (['ours', 'library'] as const) : (['ours'] as const);
  const runs: number[] = [];
  for (let r = 0; r < 3 * passes.length; r++) {
    const kernels = passes[r % passes.length] as 'ours' | 'library';
    if (tf) useSentenceKernels(tf, kernels === 'ours');
    const [meeting] = await ctx.db
      .insert(confMeetings)
      .values({ confMeetingId: `bench-2h-${r}-${Date.now()}`, topic: 'Two-hour session', sourcing: 'manual_vtt', status: 'pending' })
      .returning({ id: confMeetings.id, batchId: confMeetings.batchId, topic: confMeetings.topic });
    // The longest the event loop was held (a job's heartbeat timer waits that long): the delay
    // histogram's maximum, sampled every 10 ms.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const started = performance.now();
    const c0 = process.cpuUsage();
    const parsed = parseTranscript('vtt', vtt);
    const stored = await storeTranscript(ctx, meeting as { id: string; batchId: string | null; topic: string }, parsed);
    const c = process.cpuUsage(c0);
    loop.disable();
    runs.push(performance.now() - started);
    console.log(
      JSON.stringify({
        transcript: {
          run: r + 1,
          ...(compare ? { kernels } : {}),
          vttBytes: vtt.length,
          words: 20_000,
          parsedChars: parsed.text.length,
          knowledgeRows: stored.status === 'completed' ? stored.knowledgeCount : 0,
          wallMs: Math.round(runs[r] as number),
          cpuMs: Math.round((c.user + c.system) / 1000),
          maxLoopBlockMs: Math.round(loop.max / 1e6),
          loadAverage: load(),
        },
      }),
    );
  }
  if (tf) useSentenceKernels(tf, true);
}

main().catch(benchFailed);
