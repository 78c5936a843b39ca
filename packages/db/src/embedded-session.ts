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
const PARSE = 0x50; // 'P' (extended protocol: the statement text)
/** The COPY sub-protocol's client messages: CopyData 'd', CopyDone 'c', CopyFail 'f'. */
const COPY_MESSAGES = new Set([0x64, 0x63, 0x66]);
/**
 * A statement PGlite cannot run and hangs on (see copyRefusal): COPY from the client or from or to a
 * program. Read from the start of a statement, in the text without comments and quoted strings (a
 * comment between FROM and STDIN must not hide it; a string that mentions it must not be refused).
 */
const UNSUPPORTED_COPY = /(?:^|;)\s*copy\b[^;]*?\b(?:from\s+(?:stdin|program)|to\s+program)\b/i;
/** Comments, quoted strings and identifiers, dollar-quoted bodies: what a statement's keywords are not. */
const NOT_KEYWORDS =
  /--[^\n]*|\/\*[\s\S]*?\*\/|[eE]'(?:[^'\\]|\\[\s\S]|'')*'|'(?:[^']|'')*'|"(?:[^"]|"")*"|\$([A-Za-z_][A-Za-z_0-9]*)?\$[\s\S]*?\$\1\$/g;
/** Every query passes here: only one that mentions COPY at all pays for the strip and the match. */
const MENTIONS_COPY = /copy/i;
const unsupportedCopy = (sql: string) => MENTIONS_COPY.test(sql) && UNSUPPORTED_COPY.test(sql.replace(NOT_KEYWORDS, ' '));
const utf8 = new TextDecoder();

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
  /** Connections whose extended-protocol pipeline was refused: their messages are dropped up to Sync. */
  private readonly skipping = new Set<number>();

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
    this.skipping.delete(handlerId);
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

  /**
   * Messages answered here, never passed to PGlite: statements it cannot run (an ErrorResponse, then
   * ReadyForQuery at once for a simple query, at the Sync for an extended pipeline, whose other
   * messages are dropped as PostgreSQL discards them after an error), and COPY sub-protocol messages
   * outside a COPY, which PostgreSQL ignores. True when the message was answered or dropped here.
   */
  private answeredHere(item: Pending, wasOwner: boolean): boolean {
    const type = item.message[0] as number;
    const inTransaction = this.db.isInTransaction();
    const answer = (bytes: Uint8Array, endsExchange: boolean) => {
      if (bytes.length > 0) item.onData(bytes);
      if (endsExchange ? !inTransaction : !wasOwner && !inTransaction) this.owner = null;
      item.resolve(bytes.length);
      return true;
    };
    if (this.skipping.has(item.handlerId)) {
      if (type !== SYNC) return answer(new Uint8Array(0), false);
      this.skipping.delete(item.handlerId);
      return answer(readyForQuery(inTransaction), true);
    }
    if (COPY_MESSAGES.has(type)) return answer(new Uint8Array(0), false);
    if (type === QUERY && unsupportedCopy(queryText(item.message))) {
      return answer(Buffer.concat([copyRefusal(), readyForQuery(inTransaction)]), true);
    }
    if (type === PARSE && unsupportedCopy(parsedText(item.message))) {
      this.skipping.add(item.handlerId);
      return answer(copyRefusal(), false);
    }
    return false;
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const i = this.owner === null ? 0 : this.queue.findIndex((q) => q.handlerId === this.owner);
        if (i < 0) break; // the owner is between messages (say, inside a transaction): wait for it
        const [item] = this.queue.splice(i, 1) as [Pending];
        const wasOwner = this.owner === item.handlerId;
        this.owner = item.handlerId;
        let bytes = 0;
        let failed: Error | null = null;
        if (this.answeredHere(item, wasOwner)) continue;
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
  return utf8.decode(message.subarray(5, Math.max(5, message.length - 1)));
}

/** The SQL text of a Parse message: 'P', a 4-byte length, the statement name and the text (each NUL-ended), parameter types. */
function parsedText(message: Uint8Array): string {
  const nameEnd = message.indexOf(0, 5);
  if (nameEnd < 0) return '';
  const textEnd = message.indexOf(0, nameEnd + 1);
  return utf8.decode(message.subarray(nameEnd + 1, textEnd < 0 ? message.length : textEnd));
}

/**
 * The ErrorResponse (0A000 feature_not_supported) sent instead of running COPY FROM STDIN, FROM PROGRAM
 * or TO PROGRAM. PGlite runs the backend in this process, with no client stream to read copy data
 * from and no programs to start: it lost the protocol or waited forever, and the server then answered
 * nothing (for FROM STDIN its memory grew by a gigabyte every few seconds; psql's \copy ... from wedged
 * the whole instance). COPY to or from a file and COPY ... TO STDOUT are passed through.
 */
function copyRefusal(): Buffer {
  const fields: [string, string][] = [
    ['S', 'ERROR'],
    ['V', 'ERROR'],
    ['C', '0A000'],
    [
      'M',
      'COPY FROM STDIN, FROM PROGRAM and TO PROGRAM are not supported by the embedded database; use INSERT, or PostgreSQL (DATABASE_URL)',
    ],
  ];
  const body = Buffer.concat([...fields.map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'ascii');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** ReadyForQuery: idle, or inside a transaction block. */
const readyForQuery = (inTransaction: boolean) => Buffer.from([0x5a, 0, 0, 0, 5, (inTransaction ? 'T' : 'I').charCodeAt(0)]);
