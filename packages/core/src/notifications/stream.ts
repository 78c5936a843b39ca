import { type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { ChannelListener } from '../runtime/channel-listener.js';
import type { Logger } from '../runtime/logger.js';
import { NOTIFICATION_CHANNEL } from './kinds.js';
import { NOTIFICATION_COLUMNS, toNotificationView } from './reads.js';
import type { NotificationView, TeaDropView } from './shape.js';
import { TEA_COLUMNS, type TeaRow, toTeaView } from './tea.js';
import type { NotificationSignal } from './write.js';

type Row = Parameters<typeof toNotificationView>[0];

/**
 * Where a stream stands: the last event it sent (or the newest one when it connected). Notifications
 * and tea drops form one sequence ordered by (created_at, kind, id), kind `notification` before `tea`,
 * so one Last-Event-ID resumes both.
 */
export interface StreamCursor {
  createdAt: string;
  kind: StreamKind;
  id: string;
}
export type StreamKind = 'notification' | 'tea';

/** One event of the stream: a notification (event id: its id) or a tea drop (event id: `tea:<id>`). */
export type StreamEvent =
  | { kind: 'notification'; eventId: string; notification: NotificationView; cursor: StreamCursor }
  | { kind: 'tea'; eventId: string; tea: TeaDropView; cursor: StreamCursor };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The tea drops a stream carries (alias t): the user's personal drops and the program-wide drops of
 * every live program (a user belongs to no program; the stream, like GET /notifications, covers all).
 * Archived programs are hidden from public reads, their drops included.
 */
const teaForUser = (userId: string) =>
  sql`(t.user_id = ${userId} or (t.user_id is null and exists (select 1 from batches b where b.id = t.batch_id and b.deleted_at is null and b.archived_at is null)))`;

/**
 * The user's cursor for a new stream: the event named by Last-Event-ID (a notification id, or
 * `tea:<id>`) when it is theirs, else their newest event (so a fresh stream sends only what arrives
 * later); null when there is none yet.
 */
export async function streamCursor(ctx: Pick<CoreContext, 'db'>, userId: string, lastEventId: string | null): Promise<StreamCursor | null> {
  const teaId = lastEventId?.startsWith('tea:') ? lastEventId.slice(4) : null;
  const byNotification = lastEventId && UUID.test(lastEventId) ? sql`n.id = ${lastEventId} and n.user_id = ${userId}` : sql`false`;
  const byTea = teaId && UUID.test(teaId) ? sql`t.id = ${teaId} and ${teaForUser(userId)}` : sql`false`;
  // created_at as text: microseconds kept (a millisecond ISO string would sort before the row itself).
  const res = await ctx.db.execute<{ at: string; kind: StreamKind; id: string }>(sql`
    (select n.created_at::text as at, 'notification' as kind, n.id from notifications n where ${byNotification})
    union all
    (select t.created_at::text, 'tea', t.id from tea_notifications t where ${byTea})
    union all
    (select at, kind, id from (
      (select n.created_at, n.created_at::text as at, 'notification' as kind, n.id from notifications n where n.user_id = ${userId}
        order by n.created_at desc, n.id desc limit 1)
      union all
      (select t.created_at, t.created_at::text, 'tea', t.id from tea_notifications t where ${teaForUser(userId)}
        order by t.created_at desc, t.id desc limit 1)
    ) newest order by created_at desc, kind desc, id desc limit 1)
    limit 1`);
  const r = res.rows[0];
  return r ? { createdAt: r.at, kind: r.kind, id: r.id } : null;
}

/**
 * The user's notifications and tea drops after the cursor, oldest first (at most 100 per call), the
 * cursor after the last one read, and whether more may follow (a full batch).
 */
export async function streamAfter(
  ctx: Pick<CoreContext, 'db'>,
  userId: string,
  cursor: StreamCursor | null,
): Promise<{ events: StreamEvent[]; cursor: StreamCursor | null; more: boolean }> {
  const after = (at: SQL, kind: StreamKind, id: SQL) =>
    cursor ? sql` and (${at}, ${kind}::text, ${id}) > (${cursor.createdAt}::timestamptz, ${cursor.kind}::text, ${cursor.id}::uuid)` : sql``;
  const keys = await ctx.db.execute<{ kind: StreamKind; id: string; at: string }>(sql`
    select kind, id, at from (
      (select n.created_at, 'notification' as kind, n.id, n.created_at::text as at from notifications n
        where n.user_id = ${userId}${after(sql`n.created_at`, 'notification', sql`n.id`)} order by n.created_at, n.id limit 100)
      union all
      (select t.created_at, 'tea', t.id, t.created_at::text from tea_notifications t
        where ${teaForUser(userId)}${after(sql`t.created_at`, 'tea', sql`t.id`)} order by t.created_at, t.id limit 100)
    ) x order by created_at, kind, id limit 100`);
  const ids = (kind: StreamKind) =>
    `{${keys.rows
      .filter((k) => k.kind === kind)
      .map((k) => k.id)
      .join(',')}}`;
  const [notes, teas] = await Promise.all([
    ctx.db.execute<Row>(sql`select ${NOTIFICATION_COLUMNS} from notifications where id = any(${ids('notification')}::uuid[])`),
    ctx.db.execute<TeaRow>(sql`
      select ${TEA_COLUMNS} from tea_notifications t
      left join tea_notification_reads r on r.tea_notification_id = t.id and r.user_id = ${userId}
      where t.id = any(${ids('tea')}::uuid[])`),
  ]);
  const noteById = new Map(notes.rows.map((r) => [r.id, r]));
  const teaById = new Map(teas.rows.map((r) => [r.id, r]));
  const events: StreamEvent[] = [];
  let last = cursor;
  for (const k of keys.rows) {
    const cursorHere = { createdAt: k.at, kind: k.kind, id: k.id };
    last = cursorHere;
    const n = k.kind === 'notification' ? noteById.get(k.id) : undefined;
    const t = k.kind === 'tea' ? teaById.get(k.id) : undefined;
    // A row deleted between the two reads is skipped; the cursor still moves past it.
    if (n) events.push({ kind: 'notification', eventId: k.id, notification: toNotificationView(n), cursor: cursorHere });
    else if (t) events.push({ kind: 'tea', eventId: `tea:${k.id}`, tea: toTeaView(t), cursor: cursorHere });
  }
  return { events, cursor: last, more: keys.rows.length === 100 };
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
  /** The LISTENing connection; none without a connection string. */
  private readonly channel: ChannelListener | null;
  private poll: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    connectionString: string | undefined,
    log: Logger,
    private readonly pollMs: number,
  ) {
    this.channel = connectionString
      ? new ChannelListener({
          connection: { connectionString },
          channel: NOTIFICATION_CHANNEL,
          applicationName: 'cfaq-notification-hub',
          log,
          lostMessage: 'notification hub connection lost; retrying',
          onNotification: (payload) => {
            if (!payload) return;
            try {
              const s = JSON.parse(payload) as NotificationSignal;
              // A notification or personal drop wakes its user's streams; a program-wide drop wakes every stream.
              if (s.type === 'notification' && s.userId) this.wake(s.userId);
              else if (s.type === 'tea') this.wake(s.userId);
            } catch {
              /* not ours */
            }
          },
          // Anything committed while (re)connecting: wake everyone once.
          onListening: () => this.wake(null),
        })
      : null;
  }

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
    this.channel?.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    this.listeners.clear();
    await this.channel?.stop();
  }
}
