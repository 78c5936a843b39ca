import type pg from 'pg';
import { sha256Hex } from '../crypto/tokens.js';

/** A limiter key's state: hits in the current window and milliseconds until it ends. */
export interface CounterState {
  current: number;
  ttl: number;
  /** The window the hit was counted in (its end, as the database wrote it): what a refund names. */
  window?: string;
}

const PRUNE_EVERY_MS = 60_000;

/**
 * Fixed-window counters in PostgreSQL (table `rate_limit_counters`), for the security limiters:
 * every API process on one database counts into the same rows, so a limit holds with any number of
 * processes (and on the embedded database). Each hit is one atomic upsert; the database's clock
 * decides windows, so processes with drifting clocks agree. Keys are stored as SHA-256 only.
 */
export class SharedCounters {
  private lastPrune = 0;

  constructor(private readonly pool: pg.Pool) {}

  /** Counts a hit and answers the state after it (a new window starts when the old one ended). */
  async incr(key: string, windowMs: number): Promise<CounterState> {
    this.prune();
    const { rows } = await this.pool.query<{ hits: number; ttl: string; window: string }>(
      `insert into rate_limit_counters as c (key, hits, resets_at)
         values ($1, 1, now() + make_interval(secs => $2::double precision / 1000))
       on conflict (key) do update set
         hits = case when c.resets_at <= now() then 1 else c.hits + 1 end,
         resets_at = case when c.resets_at <= now() then excluded.resets_at else c.resets_at end
       returning hits, ceil(greatest(0, extract(epoch from (resets_at - now())) * 1000))::bigint::text as ttl,
         resets_at::text as window`,
      [sha256Hex(key), windowMs],
    );
    const row = rows[0];
    return { current: row?.hits ?? 1, ttl: Number(row?.ttl ?? windowMs), ...(row?.window ? { window: row.window } : {}) };
  }

  /** The state without counting a hit. */
  async read(key: string): Promise<CounterState> {
    const { rows } = await this.pool.query<{ hits: number; ttl: string }>(
      `select hits, ceil(extract(epoch from (resets_at - now())) * 1000)::bigint::text as ttl
         from rate_limit_counters where key = $1 and resets_at > now()`,
      [sha256Hex(key)],
    );
    const row = rows[0];
    return row ? { current: row.hits, ttl: Number(row.ttl) } : { current: 0, ttl: 0 };
  }

  /**
   * Takes one hit back (an attempt that turned out not to count) from the window it was counted in,
   * `window` as incr answered it: a refund arriving after that window ended must not free a guess in
   * the next one (under a flood, refused attempts answered seconds later tripled a window's guesses).
   */
  async refund(key: string, window?: string): Promise<void> {
    await this.pool.query(
      `update rate_limit_counters set hits = greatest(hits - 1, 0)
        where key = $1 and resets_at > now() and ($2::timestamptz is null or resets_at = $2::timestamptz)`,
      [sha256Hex(key), window ?? null],
    );
  }

  /** At most once a minute per process, in the background: rows whose window ended. */
  private prune(): void {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pool.query('delete from rate_limit_counters where resets_at < now()').catch(() => {
      this.lastPrune = 0;
    });
  }
}
