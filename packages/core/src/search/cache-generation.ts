import type pg from 'pg';
import { ChannelListener } from '../runtime/channel-listener.js';
import type { Logger } from '../runtime/logger.js';

/** The channel the generation's bump notifies at commit (migration 0033). */
export const SEARCH_CACHE_CHANNEL = 'cfaq_search_cache';
/**
 * How long a generation heard nothing against is trusted before one read confirms it: a safety net for
 * a notification lost without the connection reporting an error. Under load, about one read a second.
 */
export const SEARCH_CACHE_TRUST_MS = 1000;

export interface CacheGenerationOptions {
  /**
   * Listen for the generation's bumps (PostgreSQL): while listening, a generation read after the last
   * change is served without a read. Off, or on the embedded database, every caller gets a fresh read.
   */
  watch?: boolean;
  /** How long a value is trusted without a read (SEARCH_CACHE_TRUST_MS unless given; tests pass others). */
  trustMs?: number;
  log?: Pick<Logger, 'warn'>;
}

/**
 * Reads the search cache's generation (table `search_cache_generation`, moved by triggers on every
 * committed write that can change a search answer: migration 0014, bumped at commit since 0018). A cached answer is served only
 * while the generation it was computed under is still current, so a write through any API process
 * (or the worker) empties every process's cache at its commit, on PostgreSQL and on the embedded
 * database alike.
 *
 * `current()` resolves with a value read by a query that STARTED after the call, so a caller never
 * gets a generation from before a write it already saw committed. Concurrent callers share reads:
 * at most one runs at a time, and everyone who arrived while it ran shares the next one. A read starts
 * at the end of the event-loop turn it was asked for in (setImmediate), not at once, so the hits whose
 * requests one turn parsed share it too.
 *
 * With `watch` on PostgreSQL, one connection of this process LISTENs on the bump's channel (migration
 * 0033: notified once per writing transaction, at its commit), and a value read on it is served without
 * a new read until something may have moved it: a notification (a write through any process), the
 * release of one of this process's pool connections (a write of this process has committed before its
 * connection comes back, so its own next hit reads again, before the notification could arrive), the
 * listening connection failing (it reconnects LISTEN_RETRY_MS later), or SEARCH_CACHE_TRUST_MS passing. A write through another process is then seen as
 * soon as its notification arrives, which DESIGN.md names for cross-process cache invalidation. The
 * read each hit paid before was its largest cost (bench/search, alternating runs: 82-135 µs of API CPU a
 * hit with it, 47-85 µs without).
 * The embedded database's socket server does not carry NOTIFY between connections, so there every
 * caller reads, as without `watch`.
 */
export class CacheGeneration {
  /** The read that runs now, if any. */
  private running: Promise<string> | null = null;
  /** The read that starts next (after `running`, at the end of the event-loop turn): callers until then share it. */
  private next: Promise<string> | null = null;
  /** Counts everything that may have moved the generation: a read trusts its value only if none came during it. */
  private changes = 0;
  /** The generation nothing has moved since it was read on the listening connection, and when that read started. */
  private known: { value: Promise<string>; since: number } | null = null;
  /** The connection that LISTENs on the bump's channel (with `watch`); reads run on it while it does, outside the pool. */
  private readonly listener: ChannelListener | null;
  private readonly changed = () => {
    this.changes++;
    this.known = null;
  };

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: CacheGenerationOptions = {},
  ) {
    this.listener = opts.watch
      ? new ChannelListener({
          // The pool's own connection settings; a client of its own, so its reads release nothing.
          connection: pool.options,
          channel: SEARCH_CACHE_CHANNEL,
          applicationName: 'cfaq-search-cache',
          log: opts.log ?? { warn: () => {} },
          lostMessage: 'search cache listener lost; reading the generation on every hit until it is back',
          onNotification: this.changed,
          // Whatever was trusted before the connection listened (again) is not any more.
          onListening: this.changed,
          onLost: this.changed,
          retry: () => !pool.ending,
          accept: async (client) => {
            const { rows } = await client.query<{ embedded: boolean }>("SELECT version() LIKE '%PGlite%' AS embedded");
            // Notifications do not reach another socket connection there: read every time, for good.
            if (rows[0]?.embedded) pool.off('release', this.changed);
            return rows[0]?.embedded !== true;
          },
        })
      : null;
    if (this.listener) pool.on('release', this.changed);
  }

  current(): Promise<string> {
    const known = this.known;
    if (known && performance.now() - known.since < (this.opts.trustMs ?? SEARCH_CACHE_TRUST_MS)) return known.value;
    this.listener?.start();
    if (this.next) return this.next;
    const next = (this.running ? this.running.then(settled, settled).then(endOfTurn) : endOfTurn()).then(() => {
      // From here on a caller did not arrive before this read started: it takes the one after.
      this.next = null;
      const read = this.read();
      this.running = read;
      const done = () => {
        if (this.running === read) this.running = null;
      };
      read.then(done, done);
      return read;
    });
    this.next = next;
    return next;
  }

  /** Whether a connection of this object LISTENs now (hits may then be served without a read). */
  get listening(): boolean {
    return this.listener?.listening != null;
  }

  /** Stops listening (the pool is the caller's to end). */
  async close(): Promise<void> {
    this.pool.off('release', this.changed);
    this.changed();
    await this.listener?.stop();
  }

  private async read(): Promise<string> {
    const listening = this.listener?.listening ?? null;
    const changes = this.changes;
    const since = performance.now();
    const sql = 'select value::text as value from search_cache_generation where id = 1';
    // A listening connection that fails mid-read: the pool answers instead (the listener reconnects).
    const { rows } = await (listening
      ? listening.query<{ value: string }>(sql).catch(() => this.pool.query<{ value: string }>(sql))
      : this.pool.query<{ value: string }>(sql));
    const value = rows[0]?.value ?? '0';
    // Trusted only if it was read while listening and nothing came in meanwhile (a notification read
    // off the same connection before this answer counts: it arrived first).
    if (listening && this.listener?.listening === listening && this.changes === changes) {
      this.known = { value: Promise.resolve(value), since };
    }
    return value;
  }
}

const settled = () => undefined;
/** Resolves once the event loop has run this turn's other callbacks (the requests it parsed). */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
