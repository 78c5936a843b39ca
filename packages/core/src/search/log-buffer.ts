import type { searchLogs } from '@cfaq/db/schema/index';
import type { CoreContext } from '../context.js';
import { pgErrorOf } from '../shared/db.js';

export type SearchLogEntry = typeof searchLogs.$inferInsert;

/**
 * One INSERT of column arrays: thirteen parameters whatever the batch size, so a flush costs the API
 * process little (a 500-row VALUES list would be 5,500 parameters to build and parse). Times travel as
 * epoch milliseconds: formatting a Date per row was a visible share of a busy API's CPU. A searcher
 * deleted since the search is written as no user (the column's own `on delete set null`): the row
 * would otherwise fail its foreign key and refuse the whole batch.
 */
async function insertLogs(ctx: Pick<CoreContext, 'pool'>, rows: SearchLogEntry[]): Promise<void> {
  const col = <K extends keyof SearchLogEntry>(k: K) => rows.map((r) => r[k] ?? null);
  await ctx.pool.query(
    `INSERT INTO search_logs (query, normalized_query, user_id, batch_id, result_count, top_result_id, top_source,
       cache_hit, degraded, latency_ms, count, created_at, client_key)
     SELECT q, nq, (SELECT id FROM users WHERE id = u), b, rc, tr, ts, ch, dg, lm, n, to_timestamp(at / 1000.0), ck
     FROM unnest($1::text[], $2::text[], $3::uuid[], $4::uuid[], $5::int[], $6::uuid[], $7::text[],
       $8::bool[], $9::bool[], $10::int[], $11::int[], $12::float8[], $13::text[]) AS l(q, nq, u, b, rc, tr, ts, ch, dg, lm, n, at, ck)`,
    [
      col('query'),
      col('normalizedQuery'),
      col('userId'),
      col('batchId'),
      col('resultCount'),
      col('topResultId'),
      col('topSource'),
      rows.map((r) => r.cacheHit ?? false),
      rows.map((r) => r.degraded ?? false),
      col('latencyMs'),
      rows.map((r) => r.count ?? 1),
      rows.map((r) => (r.createdAt ?? new Date()).getTime()),
      col('clientKey'),
    ],
  );
}

/** Rows per INSERT when flushing. */
const CHUNK = 2000;
/** Beyond this many unflushed entries (database down), the oldest are dropped rather than growing without bound. */
const MAX_PENDING = 50_000;

/**
 * The search log, buffered in memory and written in multi-row INSERTs every SEARCH_LOG_FLUSH_MS, when
 * a chunk fills, and on shutdown (`stop()`), so a search never waits on its log row and a SIGTERM loses
 * no entry. Cache hits of the same cached answer (program, normalised query, results), user and query
 * text within one interval share a row and raise its `count`: a popular cached query costs the database
 * a row per interval, not a row per hit (per-hit rows cost PostgreSQL 12-17 us of CPU each and held
 * cache hits near a quarter of a hello-world route's throughput; bench/search).
 */
export class SearchLogBuffer {
  private pending: SearchLogEntry[] = [];
  /**
   * Pending cache-hit rows until their flush starts, by answer (the cached results array: program,
   * normalised query and results), then searcher (client key, else user), then query text. Identity and plain-string keys: no key
   * string is built per hit.
   */
  private hitRows = new Map<object, Map<string | null, Map<string, SearchLogEntry>>>();
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: Pick<CoreContext, 'pool' | 'log' | 'clock'>,
    private readonly flushMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /**
   * Buffers one search. A cache hit passes the cached answer it was served from: hits of the same answer,
   * user and query text share a row until its flush starts, counted in `count`.
   */
  add(entry: Omit<SearchLogEntry, 'createdAt' | 'count'>, answer?: object): void {
    let byQuery: Map<string, SearchLogEntry> | undefined;
    if (entry.cacheHit && answer) {
      const who = entry.clientKey ?? entry.userId ?? null;
      let byUser = this.hitRows.get(answer);
      if (!byUser) {
        byUser = new Map();
        this.hitRows.set(answer, byUser);
      }
      byQuery = byUser.get(who);
      if (!byQuery) {
        byQuery = new Map();
        byUser.set(who, byQuery);
      }
      const row = byQuery.get(entry.query);
      if (row) {
        row.count = (row.count ?? 1) + 1;
        return;
      }
    }
    const row: SearchLogEntry = { ...entry, count: 1, createdAt: this.ctx.clock.now() };
    this.pending.push(row);
    byQuery?.set(entry.query, row);
    if (this.pending.length > MAX_PENDING) {
      this.pending.splice(0, this.pending.length - MAX_PENDING);
      this.hitRows.clear();
      this.ctx.log.warn({ kept: MAX_PENDING }, 'search log buffer full; oldest entries dropped');
    }
    if (this.pending.length >= CHUNK) void this.flush();
  }

  get size(): number {
    return this.pending.length;
  }

  /** Writes everything buffered so far; flushes run one after another. Resolves to the rows written. */
  flush(): Promise<number> {
    const run = this.chain.then(() => this.writePending());
    this.chain = run.catch(() => {});
    return run;
  }

  private async writePending(): Promise<number> {
    // Rows about to be written take no more hits: a hit after this starts a new row.
    this.hitRows.clear();
    let written = 0;
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, CHUNK);
      try {
        await insertLogs(this.ctx, batch);
      } catch (err) {
        if (!refusedByData(err)) {
          this.ctx.log.error({ err, pending: this.pending.length }, 'search log flush failed; will retry');
          return written;
        }
        // The database refused a row, not the connection: retrying the batch would refuse it for good and
        // every search after it. Row by row, the rows it takes are written and the ones it refuses dropped.
        const each = await this.writeEach(batch);
        written += each.written;
        this.pending.splice(0, each.done);
        if (each.done < batch.length) return written;
        continue;
      }
      this.pending.splice(0, batch.length);
      written += batch.length;
    }
    return written;
  }

  /** Writes rows one at a time; stops (to retry later) when the database itself fails. */
  private async writeEach(batch: SearchLogEntry[]): Promise<{ written: number; done: number }> {
    let written = 0;
    let done = 0;
    for (const row of batch) {
      try {
        await insertLogs(this.ctx, [row]);
        written += 1;
      } catch (err) {
        if (!refusedByData(err)) {
          this.ctx.log.error({ err, pending: this.pending.length - done }, 'search log flush failed; will retry');
          break;
        }
        this.ctx.log.error({ err }, 'search log row refused by the database; dropped');
      }
      done += 1;
    }
    return { written, done };
  }

  /** Stops the timer and flushes what is left (the app's onClose hook). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

/** A data exception or an integrity violation (SQLSTATE classes 22 and 23): the row, not the database, is at fault. */
const refusedByData = (err: unknown) => /^2[23]/.test(pgErrorOf(err)?.code ?? '');
