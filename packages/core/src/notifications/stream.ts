import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { CoreContext } from '../context.js';
import type { Logger } from '../runtime/logger.js';
import { NOTIFICATION_CHANNEL } from './kinds.js';
import { NOTIFICATION_COLUMNS, toNotificationView } from './reads.js';
import type { NotificationView } from './shape.js';
import type { NotificationSignal } from './write.js';

/** Where a stream stands: the last notification it sent (or the newest one when it connected). */
export interface StreamCursor {
  createdAt: string;
  id: string;
}

type Row = Parameters<typeof toNotificationView>[0];

/**
 * The user's cursor for a new stream: the notification named by Last-Event-ID when it is theirs,
 * else their newest notification (so a fresh stream sends only what arrives later); null when they
 * have none yet.
 */
export async function streamCursor(ctx: Pick<CoreContext, 'db'>, userId: string, lastEventId: string | null): Promise<StreamCursor | null> {
  const byId = lastEventId && /^[0-9a-f-]{36}$/i.test(lastEventId) ? sql`id = ${lastEventId} and user_id = ${userId}` : sql`false`;
  // created_at as text: microseconds kept (a millisecond ISO string would sort before the row itself).
  const res = await ctx.db.execute<{ at: string; id: string }>(sql`
    (select created_at::text as at, id from notifications where ${byId})
    union all
    (select created_at::text as at, id from notifications where user_id = ${userId} order by created_at desc, id desc limit 1)
    limit 1`);
  const r = res.rows[0];
  return r ? { createdAt: r.at, id: r.id } : null;
}

/** The user's notifications after the cursor, oldest first (at most 100 per call). */
export async function notificationsAfter(
  ctx: Pick<CoreContext, 'db'>,
  userId: string,
  cursor: StreamCursor | null,
): Promise<{ notification: NotificationView; cursor: StreamCursor }[]> {
  const after = cursor ? sql` and (created_at, id) > (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)` : sql``;
  const res = await ctx.db.execute<Row & { at: string }>(
    sql`select ${NOTIFICATION_COLUMNS}, created_at::text as at from notifications where user_id = ${userId}${after} order by created_at, id limit 100`,
  );
  return res.rows.map((r) => ({ notification: toNotificationView(r), cursor: { createdAt: r.at, id: r.id } }));
}

type Listener = () => void;

/**
 * One per API process: a dedicated connection LISTENs on the notifications channel (every process
 * hears every commit, whichever process wrote it) and wakes the streams of the user a signal names.
 * A poll wakes every stream now and then as a safety net (a dropped connection, or the embedded
 * database, whose socket server does not carry NOTIFY between connections).
 */
export class NotificationHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private client: pg.Client | null = null;
  private poll: NodeJS.Timeout | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly connectionString: string | undefined,
    private readonly log: Logger,
    private readonly pollMs: number,
  ) {}

  /** Registers a stream's wake-up; returns its removal. Starts listening with the first stream. */
  subscribe(userId: string, wake: Listener): () => void {
    let set = this.listeners.get(userId);
    if (!set) {
      set = new Set();
      this.listeners.set(userId, set);
    }
    set.add(wake);
    this.ensureStarted();
    return () => {
      set.delete(wake);
      if (set.size === 0) this.listeners.delete(userId);
    };
  }

  get size(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }

  private wake(userId: string | null) {
    const targets = userId ? [this.listeners.get(userId)] : [...this.listeners.values()];
    for (const set of targets) for (const fn of set ?? []) fn();
  }

  private ensureStarted() {
    if (this.stopped) return;
    if (!this.poll) {
      this.poll = setInterval(() => this.wake(null), this.pollMs);
      this.poll.unref();
    }
    if (!this.client && !this.retry) void this.connect();
  }

  private async connect() {
    if (!this.connectionString || this.stopped) return;
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'cfaq-notification-hub' });
    this.client = client;
    const fail = (err: unknown) => {
      this.log.warn({ err }, 'notification hub connection lost; retrying');
      client.removeAllListeners();
      void client.end().catch(() => {});
      if (this.client === client) this.client = null;
      if (!this.stopped && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = null;
          void this.connect();
        }, 2000);
        this.retry.unref();
      }
    };
    client.on('error', fail);
    client.on('notification', (msg) => {
      if (msg.channel !== NOTIFICATION_CHANNEL || !msg.payload) return;
      try {
        const s = JSON.parse(msg.payload) as NotificationSignal;
        if (s.type === 'notification' && s.userId) this.wake(s.userId);
      } catch {
        /* not ours */
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFICATION_CHANNEL}`);
      // Anything committed while (re)connecting: wake everyone once.
      this.wake(null);
    } catch (err) {
      fail(err);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    if (this.retry) clearTimeout(this.retry);
    this.listeners.clear();
    const c = this.client;
    this.client = null;
    if (c) {
      c.removeAllListeners();
      c.on('error', () => {});
      await c.end().catch(() => {});
    }
  }
}
