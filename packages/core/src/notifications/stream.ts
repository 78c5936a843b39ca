import { type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { loadPrincipal } from '../identity/principal.js';
import { ChannelListener } from '../runtime/channel-listener.js';
import type { Logger } from '../runtime/logger.js';
import { isUuid } from '../shared/uuid.js';
import { NOTIFICATION_CHANNEL } from './kinds.js';
import { NOTIFICATION_COLUMNS, toNotificationView } from './reads.js';
import type { NotificationView, TeaDropView } from './shape.js';
import { TEA_COLUMNS, type TeaRow, toTeaView, wideShownTo } from './tea.js';
import type { NotificationSignal } from './write.js';

type Row = Parameters<typeof toNotificationView>[0];

/**
 * The stream's order. Notifications and tea drops form one sequence ordered by (stream_xid, kind, id):
 * stream_xid is the id of the transaction that wrote the row (kind `notification` before `tea`), so
 * one Last-Event-ID resumes both.
 *
 * Why not created_at: it is the writing transaction's start, and a transaction that started first can
 * commit last, behind rows already sent; transaction ids have the same problem. So a read takes only
 * the rows whose transaction id is below its bound (`STREAM_BOUND`): every transaction of this
 * database below it has ended, so no row can ever appear behind what was read. A committed row above
 * it (its transaction took its id after one still open) waits, `held`, until that one ends.
 */
export type StreamKind = 'notification' | 'tea';

/** Where a stream stands in that sequence. */
export interface StreamCursor {
  /** The last event read (its stream_xid as text, kind and id); null when none has been read yet. */
  last: { xid: string; kind: StreamKind; id: string } | null;
  /**
   * A stream started without a resume point: the snapshot (pg_snapshot as text) taken when it
   * connected, and that read's bound (every row below it was in the snapshot). The rows the snapshot
   * shows were there before, and are never sent; every later commit is.
   */
  since: { snapshot: string; bound: string } | null;
}

/** One event of the stream: a notification (event id: its id) or a tea drop (event id: `tea:<id>`). */
export type StreamEvent =
  | { kind: 'notification'; eventId: string; notification: NotificationView; cursor: StreamCursor }
  | { kind: 'tea'; eventId: string; tea: TeaDropView; cursor: StreamCursor };

/**
 * A read that held rows back (committed, but behind a transaction still open) is repeated after
 * STREAM_RECHECK_MIN_MS, the wait doubling while they stay held, up to STREAM_RECHECK_MAX_MS: the end
 * of the open transaction signals nothing when it wrote nothing for the user.
 */
export const STREAM_RECHECK_MIN_MS = 100;
export const STREAM_RECHECK_MAX_MS = 1600;

/**
 * The program-wide tea drops of live programs (alias t) of kinds the user has on: archived and deleted
 * programs are hidden from public reads, and a kind switched off in the user's settings hides its drops.
 */
const liveWide = (userId: string) =>
  sql`t.user_id is null and exists (select 1 from batches b where b.id = t.batch_id and b.deleted_at is null and b.archived_at is null) and ${wideShownTo(userId)}`;

/**
 * A read's snapshot and bound (a CTE `s`: snap, bound). The bound is the lowest transaction id that
 * may still commit rows the read cannot see: the lowest id its snapshot shows running (the snapshot's
 * xmin), or the next id to be given out when none runs, except that a transaction seen running in
 * another database is skipped. Transaction ids are shared by the whole cluster, and a transaction of
 * another database (a long one, a CREATE DATABASE) writes no row here. An id the snapshot shows
 * running but no longer found running (it ended meanwhile) counts: its rows are not in this read.
 */
const STREAM_BOUND = sql`s as materialized (
  select c.snap, least(pg_snapshot_xmax(c.snap), (
    select min(x) from pg_snapshot_xip(c.snap) x
    where x::xid not in (
      select a.backend_xid from pg_stat_activity a where a.backend_xid is not null and a.datname <> current_database())
  )) as bound
  from (select pg_current_snapshot() as snap) c)`;

/**
 * The user's cursor for a new stream: after the event named by Last-Event-ID (a notification id, or
 * `tea:<id>`, also of a drop withdrawn or of a program archived since) when it is theirs; else from
 * now (what is committed already is not sent).
 */
export async function streamCursor(ctx: Pick<CoreContext, 'db'>, userId: string, lastEventId: string | null): Promise<StreamCursor> {
  const teaId = lastEventId?.startsWith('tea:') ? lastEventId.slice(4) : null;
  const byNotification = isUuid(lastEventId) ? sql`n.id = ${lastEventId} and n.user_id = ${userId}` : sql`false`;
  // A drop the stream sent: the user's own or a program-wide one, live or not any more (its program
  // archived since, or withdrawn: then its place is in tea_withdrawals), so a resume never starts over.
  const teaOf = (alias: 't' | 'w') =>
    isUuid(teaId)
      ? sql`${sql.raw(alias)}.id = ${teaId} and (${sql.raw(alias)}.user_id = ${userId} or ${sql.raw(alias)}.user_id is null)`
      : sql`false`;
  const res = await ctx.db.execute<{ snapshot: string; bound: string; xid: string | null; kind: StreamKind | null; id: string | null }>(sql`
    with ${STREAM_BOUND}
    select s.snap::text as snapshot, s.bound::text as bound, e.xid, e.kind, e.id
    from s left join lateral (
      (select n.stream_xid::text as xid, 'notification' as kind, n.id from notifications n where ${byNotification})
      union all
      (select t.stream_xid::text, 'tea', t.id from tea_notifications t where ${teaOf('t')})
      union all
      (select w.stream_xid::text, 'tea', w.id from tea_withdrawals w where ${teaOf('w')})
      limit 1
    ) e on true`);
  const r = res.rows[0]!;
  return r.xid && r.kind && r.id
    ? { last: { xid: r.xid, kind: r.kind, id: r.id }, since: null }
    : { last: null, since: { snapshot: r.snapshot, bound: r.bound } };
}

/** The conditions that put a row of `kind` (alias a) after the cursor. */
function after(a: 'n' | 't', kind: StreamKind, cursor: StreamCursor | null): SQL {
  const xid = sql.raw(`${a}.stream_xid`);
  const id = sql.raw(`${a}.id`);
  const parts: SQL[] = [];
  const last = cursor?.last;
  if (last) {
    // (stream_xid, kind, id) > (last.xid, last.kind, last.id), spelled so the (…, stream_xid, id) indexes serve it.
    if (kind === last.kind) parts.push(sql`(${xid}, ${id}) > (${last.xid}::xid8, ${last.id}::uuid)`);
    else if (kind > last.kind) parts.push(sql`${xid} >= ${last.xid}::xid8`);
    else parts.push(sql`${xid} > ${last.xid}::xid8`);
  }
  const since = cursor?.since;
  // A row the snapshot does not show is at or above its bound: the range the indexes read.
  if (since) parts.push(sql`${xid} >= ${since.bound}::xid8 and not pg_visible_in_snapshot(${xid}, ${since.snapshot}::pg_snapshot)`);
  return parts.length ? sql` and ${sql.join(parts, sql` and `)}` : sql``;
}

/** True when `xid` is at or past the snapshot's xmax: no row from there on is in it. */
const pastSnapshot = (xid: string, snapshot: string) => BigInt(xid) >= BigInt(snapshot.split(':')[1] ?? '0');

/**
 * The user's notifications and tea drops after the cursor, in stream order (at most 100 per call), the
 * cursor after the last one read, whether more may follow (a full batch), and whether committed rows
 * were held back behind a transaction still open (read again soon). A null cursor reads from the start.
 */
export async function streamAfter(
  ctx: Pick<CoreContext, 'db'>,
  userId: string,
  cursor: StreamCursor | null,
): Promise<{ events: StreamEvent[]; cursor: StreamCursor | null; more: boolean; held: boolean }> {
  // One statement, so one snapshot: the rows below its bound are read, the ones at or above it are held.
  const bound = sql`(select bound from s)`;
  const keys = await ctx.db.execute<{ held: boolean; kind: StreamKind | null; id: string | null; xid: string | null }>(sql`
    with ${STREAM_BOUND},
    h as materialized (select coalesce(
      (select n.stream_xid from notifications n where n.user_id = ${userId} and n.stream_xid >= ${bound}${after('n', 'notification', cursor)}
        order by n.stream_xid limit 1),
      (select t.stream_xid from tea_notifications t where t.user_id = ${userId} and t.stream_xid >= ${bound}${after('t', 'tea', cursor)}
        order by t.stream_xid limit 1),
      (select t.stream_xid from tea_notifications t where ${liveWide(userId)} and t.stream_xid >= ${bound}${after('t', 'tea', cursor)}
        order by t.stream_xid limit 1)
    ) is not null as held)
    select h.held, x.kind, x.id, x.xid from h left join (
      select * from (
        (select n.stream_xid, 'notification' as kind, n.id, n.stream_xid::text as xid from notifications n
          where n.user_id = ${userId} and n.stream_xid < ${bound}${after('n', 'notification', cursor)}
          order by n.stream_xid, n.id limit 100)
        union all
        (select t.stream_xid, 'tea', t.id, t.stream_xid::text from tea_notifications t
          where t.user_id = ${userId} and t.stream_xid < ${bound}${after('t', 'tea', cursor)}
          order by t.stream_xid, t.id limit 100)
        union all
        (select t.stream_xid, 'tea', t.id, t.stream_xid::text from tea_notifications t
          where ${liveWide(userId)} and t.stream_xid < ${bound}${after('t', 'tea', cursor)}
          order by t.stream_xid, t.id limit 100)
      ) u order by stream_xid, kind, id limit 100
    ) x on true
    order by x.stream_xid, x.kind, x.id`);
  const held = keys.rows[0]?.held ?? false;
  const read = keys.rows.filter((k): k is { held: boolean; kind: StreamKind; id: string; xid: string } => k.id !== null);
  const ids = (kind: StreamKind) =>
    `{${read
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
  for (const k of read) {
    // Past the snapshot's end, no row is in it any more: the filter goes.
    const since = last?.since && !pastSnapshot(k.xid, last.since.snapshot) ? last.since : null;
    const cursorHere: StreamCursor = { last: { xid: k.xid, kind: k.kind, id: k.id }, since };
    last = cursorHere;
    const n = k.kind === 'notification' ? noteById.get(k.id) : undefined;
    const t = k.kind === 'tea' ? teaById.get(k.id) : undefined;
    // A row deleted between the two reads is skipped; the cursor still moves past it.
    if (n) events.push({ kind: 'notification', eventId: k.id, notification: toNotificationView(n), cursor: cursorHere });
    else if (t) events.push({ kind: 'tea', eventId: `tea:${k.id}`, tea: toTeaView(t), cursor: cursorHere });
  }
  return { events, cursor: last, more: read.length === 100, held };
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

/**
 * Whether the user may still read their stream: not deleted, not suspended. Checked before every
 * read, so a stream opened before a suspension or deletion ends at its next event instead of going
 * on delivering (every other route refuses such a user at once).
 */
export async function streamStillOpen(ctx: Pick<CoreContext, 'db' | 'clock'>, userId: string): Promise<boolean> {
  const who = await loadPrincipal(ctx, userId);
  return who !== null && !who.suspended;
}
