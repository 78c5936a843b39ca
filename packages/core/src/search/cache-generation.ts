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
 * at most one runs at a time, and everyone who arrived while it ran shares the next one.
 */
export class CacheGeneration {
  private running: Promise<string> | null = null;
  private queued: Promise<string> | null = null;

  constructor(private readonly pool: pg.Pool) {}

  current(): Promise<string> {
    if (!this.running) {
      this.running = this.read().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    if (!this.queued) {
      this.queued = this.running
        .catch(() => undefined)
        .then(() => {
          this.queued = null;
          return this.current();
        });
    }
    return this.queued;
  }

  private async read(): Promise<string> {
    const { rows } = await this.pool.query<{ value: string }>('select value::text as value from search_cache_generation where id = 1');
    return rows[0]?.value ?? '0';
  }
}
