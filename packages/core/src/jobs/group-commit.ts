/**
 * Group commit for independent sends: items arriving while the previous batch is being written (and
 * those arriving in the same turn of the event loop) are written together by one `flush`, one
 * statement and one commit, and each caller's promise settles only after that commit. A failed flush
 * rejects every item of its batch, so each caller sees the failure (the webhook answers 503 for each).
 *
 * Why: a webhook acknowledgement is one job INSERT and commit; at 1,000+ a second, per-statement work
 * (the round trip, the backend's parse and plan, a WAL flush per commit) dominated, and it is the same
 * for one row as for fifty. No timer: a batch leaves as soon as nothing of this queue is in flight, so
 * a lone send waits only for the next `setImmediate`, and under load the batch grows with the commit
 * latency it has to wait for anyway.
 */
export class GroupCommit<I, O> {
  private queued: { item: I; resolve: (out: O) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = false;
  private scheduled = false;

  /**
   * @param flush writes the items in one commit and answers one output per item, in order.
   * @param maxBatch the most items one flush gets (the rest wait for the next).
   */
  constructor(
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly maxBatch: number,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.inFlight || this.scheduled || this.queued.length === 0) return;
    this.scheduled = true;
    // After the current I/O phase, so requests read in the same turn join one batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.inFlight) return;
    const batch = this.queued.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.inFlight = true;
    try {
      const out = await this.flush(batch.map((b) => b.item));
      if (out.length !== batch.length) throw new Error(`group commit: ${out.length} results for ${batch.length} items`);
      for (const [i, b] of batch.entries()) b.resolve(out[i] as O);
    } catch (err) {
      for (const b of batch) b.reject(err);
    } finally {
      this.inFlight = false;
      this.kick();
    }
  }
}
