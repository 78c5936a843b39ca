import type pg from 'pg';

/**
 * Reads the search cache's generation (table `search_cache_generation`, moved by triggers on every
 * committed write that can change a search answer: migration 0014, bumped at commit since 0018). A cached answer is served only
 * while the generation it was computed under is still current, so a write through any API process
 * (or the worker) empties every process's cache at its commit, on PostgreSQL and on the embedded
 * database alike (no LISTEN/NOTIFY, which does not cross the embedded server's connections).
 *
 * `current()` resolves with a value read by a query that STARTED after the call, so a caller never
 * gets a generation from before a write it already saw committed. Concurrent callers share reads:
 * at most one runs at a time, and everyone who arrived while it ran shares the next one. A read starts
 * at the end of the event-loop turn it was asked for in (setImmediate), not at once, so the hits whose
 * requests one turn parsed share it too: starting it at once gave a busy API about one read per hit
 * (10 connections of cache hits: the read's round trip, mostly its socket write, was ~14 % of the
 * process's CPU and the largest cost of a hit beyond a hello-world request; bench/search).
 */
export class CacheGeneration {
  /** The read that runs now, if any. */
  private running: Promise<string> | null = null;
  /** The read that starts next (after `running`, at the end of the event-loop turn): callers until then share it. */
  private next: Promise<string> | null = null;

  constructor(private readonly pool: pg.Pool) {}

  current(): Promise<string> {
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

  private async read(): Promise<string> {
    const { rows } = await this.pool.query<{ value: string }>('select value::text as value from search_cache_generation where id = 1');
    return rows[0]?.value ?? '0';
  }
}

const settled = () => undefined;
/** Resolves once the event loop has run this turn's other callbacks (the requests it parsed). */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
