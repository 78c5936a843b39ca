import type { PGlite } from '@electric-sql/pglite';

interface Pending {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (err: Error) => void;
}

const QUERY = 0x51; // 'Q' simple query: one complete exchange
const SYNC = 0x53; // 'S' ends an extended-protocol pipeline (Parse/Bind/Describe/Execute/Sync)
const TERMINATE = 0x58; // 'X'
const PASSWORD = 0x70; // 'p' (startup exchange)
/** The COPY sub-protocol's client messages: CopyData 'd', CopyDone 'c', CopyFail 'f'. */
const COPY_MESSAGES = new Set([0x64, 0x63, 0x66]);
/** A simple query that would start COPY ... FROM STDIN (see refuseCopyIn). */
const COPY_FROM_STDIN = /\bcopy\b[\s\S]*\bfrom\s+stdin\b/i;

/**
 * Hands the one PGlite session to one socket connection at a time, for a whole exchange.
 *
 * PGlite is a single PostgreSQL session; every socket connection of the server shares it. The
 * socket server's own queue interleaves connections message by message, so connection A's Bind
 * can run against connection B's Parse, and its result rows reach the wrong client. This queue
 * gives the session to a connection from its first message until the session is idle again: the
 * end of a simple query or of an extended-protocol pipeline (Sync) outside a transaction block.
 * A transaction therefore runs alone from BEGIN to COMMIT, which is what makes row locks,
 * `FOR UPDATE` and transaction-scoped advisory locks hold on the embedded database. A connection
 * that goes away while it holds the session has its open transaction rolled back.
 *
 * What this cannot fix, and the code therefore avoids: state kept per connection in PostgreSQL
 * (named prepared statements, session settings, session-level advisory locks) is shared by every
 * connection here, so names collide and session locks are re-entrant across "connections".
 *
 * Same shape as the socket server's internal queue (`enqueue`, `clearQueueForHandler`,
 * `clearTransactionIfNeeded`, `getQueueLength`), which it replaces.
 */
export class ExclusiveSessionQueue {
  private queue: Pending[] = [];
  private owner: number | null = null;
  private running = false;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.pump();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((q) => {
      if (q.handlerId !== handlerId) return true;
      q.reject(new Error('Handler disconnected'));
      return false;
    });
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = null;
    await this.pump();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const i = this.owner === null ? 0 : this.queue.findIndex((q) => q.handlerId === this.owner);
        if (i < 0) break; // the owner is between messages (say, inside a transaction): wait for it
        const [item] = this.queue.splice(i, 1) as [Pending];
        this.owner = item.handlerId;
        let bytes = 0;
        let failed: Error | null = null;
        const type = item.message[0] as number;
        // PostgreSQL ignores the COPY sub-protocol's messages outside a COPY; PGlite must never see them.
        if (COPY_MESSAGES.has(type)) {
          item.resolve(0);
          continue;
        }
        if (type === QUERY && COPY_FROM_STDIN.test(queryText(item.message))) {
          const refusal = copyInRefusal(this.db.isInTransaction());
          item.onData(refusal);
          if (!this.db.isInTransaction()) this.owner = null;
          item.resolve(refusal.length);
          continue;
        }
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (err) {
          failed = err as Error;
        }
        if (endsExchange(item.message) && !this.db.isInTransaction()) this.owner = null;
        if (failed) item.reject(failed);
        else item.resolve(bytes);
      }
    } finally {
      this.running = false;
    }
  }
}

/** A message after which the session can pass to another connection if no transaction is open. */
function endsExchange(message: Uint8Array): boolean {
  const type = message[0];
  // Startup and SSL/cancel requests start with a length, whose first byte is 0; typed messages
  // start with an ASCII letter.
  return type === 0 || type === QUERY || type === SYNC || type === TERMINATE || type === PASSWORD;
}

/** The SQL text of a simple Query message: 'Q', a 4-byte length, the text, a NUL. */
function queryText(message: Uint8Array): string {
  return new TextDecoder().decode(message.subarray(5, Math.max(5, message.length - 1)));
}

/**
 * The answer to a simple query holding COPY ... FROM STDIN, sent instead of running it: an
 * ErrorResponse (0A000 feature_not_supported) and ReadyForQuery. PGlite runs the backend in one
 * process with no client stream to read the copy data from: it lost the protocol, and the server then
 * spun, its memory growing by a gigabyte every few seconds, answering nothing (psql's \copy ... from
 * wedged the whole instance). COPY ... TO STDOUT works and is passed through.
 */
function copyInRefusal(inTransaction: boolean): Uint8Array {
  const fields: [string, string][] = [
    ['S', 'ERROR'],
    ['V', 'ERROR'],
    ['C', '0A000'],
    ['M', 'COPY FROM STDIN is not supported by the embedded database; use INSERT, or PostgreSQL (DATABASE_URL)'],
  ];
  const body = Buffer.concat([...fields.map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')), Buffer.from([0])]);
  const error = Buffer.alloc(5);
  error.write('E', 0, 'ascii');
  error.writeInt32BE(body.length + 4, 1);
  const ready = Buffer.from([0x5a, 0, 0, 0, 5, (inTransaction ? 'T' : 'I').charCodeAt(0)]);
  return new Uint8Array(Buffer.concat([error, body, ready]));
}
