import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, invalidField, notFound } from '../errors/index.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { toDate } from '../shared/shape.js';
import { NOTIFICATION_KINDS } from './kinds.js';
import type { NotificationView } from './shape.js';

type Ctx = Pick<CoreContext, 'db'>;

type NotificationRow = {
  id: string;
  batch_id: string | null;
  kind: string;
  title: string;
  body: string | null;
  link: string | null;
  data: Record<string, unknown>;
  read_at: Date | string | null;
  created_at: Date | string;
};

export const NOTIFICATION_COLUMNS = sql`id, batch_id, kind, title, body, link, data, read_at, created_at`;

export const toNotificationView = (r: NotificationRow): NotificationView => ({
  id: r.id,
  batchId: r.batch_id,
  kind: r.kind,
  title: r.title,
  body: r.body,
  link: r.link,
  data: r.data ?? {},
  read: r.read_at !== null,
  readAt: r.read_at === null ? null : toDate(r.read_at),
  createdAt: toDate(r.created_at),
});

export interface NotificationQuery extends PageQuery {
  /** Only this program's notifications; all of the user's when absent (the user is not program-scoped). */
  batchId?: string | undefined;
  unread?: boolean | undefined;
}

/** The caller's notifications, newest first, with their unread count (same filter, read or not). */
export async function listNotifications(
  ctx: Ctx,
  userId: string,
  q: NotificationQuery,
): Promise<Page<NotificationView> & { unreadCount: number }> {
  const batchId = q.batchId ? await resolveProgramId(ctx, q.batchId, { allowArchived: true }) : null;
  const w = pageWindow(q);
  const scope = sql`user_id = ${userId}${batchId ? sql` and batch_id = ${batchId}` : sql``}`;
  const where = q.unread ? sql`${scope} and read_at is null` : scope;
  const [rows, counts] = await Promise.all([
    ctx.db.execute<NotificationRow>(
      sql`select ${NOTIFICATION_COLUMNS} from notifications where ${where} order by created_at desc, id desc limit ${w.limit} offset ${w.offset}`,
    ),
    ctx.db.execute<{ total: number; unread: number }>(
      sql`select count(*) filter (where ${q.unread ? sql`read_at is null` : sql`true`})::int as total,
                 count(*) filter (where read_at is null)::int as unread
          from notifications where ${scope}`,
    ),
  ]);
  const c = counts.rows[0] ?? { total: 0, unread: 0 };
  return { ...toPage(rows.rows.map(toNotificationView), c.total, w), unreadCount: c.unread };
}

/** Marks one of the caller's notifications read (idempotent). Another user's or an unknown id: 404. */
export async function markNotificationRead(ctx: Ctx, userId: string, id: string): Promise<NotificationView> {
  const res = await ctx.db.execute<NotificationRow>(sql`
    update notifications set read_at = coalesce(read_at, now()) where id = ${id} and user_id = ${userId}
    returning ${NOTIFICATION_COLUMNS}`);
  const row = res.rows[0];
  if (!row) throw notFound('Notification', Code.NOTIFICATION_NOT_FOUND);
  return toNotificationView(row);
}

/** Marks all the caller's unread notifications read (one program's with batchId). */
export async function markAllNotificationsRead(
  ctx: Ctx,
  userId: string,
  q: { batchId?: string | undefined },
): Promise<{ updated: number }> {
  const batchId = q.batchId ? await resolveProgramId(ctx, q.batchId, { allowArchived: true }) : null;
  const res = await ctx.db.execute<{ n: number }>(sql`
    with u as (update notifications set read_at = now()
               where user_id = ${userId} and read_at is null${batchId ? sql` and batch_id = ${batchId}` : sql``} returning 1)
    select count(*)::int as n from u`);
  return { updated: res.rows[0]?.n ?? 0 };
}

export interface NotificationSettingsView {
  inApp: boolean;
  email: boolean;
  teaDrops: boolean;
  /** Every documented kind with its switch (true unless switched off). */
  kinds: Record<string, boolean>;
}

const withAllKinds = (kinds: Record<string, boolean>) =>
  Object.fromEntries(Object.keys(NOTIFICATION_KINDS).map((k) => [k, kinds[k] !== false]));

export async function getNotificationSettings(ctx: Ctx, userId: string): Promise<NotificationSettingsView> {
  const res = await ctx.db.execute<{ in_app: boolean; email: boolean; tea_drops: boolean; kinds: Record<string, boolean> }>(
    sql`select in_app, email, tea_drops, kinds from notification_settings where user_id = ${userId}`,
  );
  const r = res.rows[0];
  return { inApp: r?.in_app ?? true, email: r?.email ?? false, teaDrops: r?.tea_drops ?? true, kinds: withAllKinds(r?.kinds ?? {}) };
}

export interface NotificationSettingsPatch {
  inApp?: boolean | undefined;
  email?: boolean | undefined;
  teaDrops?: boolean | undefined;
  kinds?: Record<string, boolean> | undefined;
}

/** Partial update: absent fields keep their value; kinds merge into the stored switches (unknown kinds: 400). */
export async function updateNotificationSettings(
  ctx: Ctx,
  userId: string,
  patch: NotificationSettingsPatch,
): Promise<NotificationSettingsView> {
  for (const k of Object.keys(patch.kinds ?? {})) {
    // Own keys only: `in` also finds what every object inherits (constructor, toString).
    if (!Object.hasOwn(NOTIFICATION_KINDS, k))
      throw invalidField(`body.kinds.${k}`, `unknown notification kind (${Object.keys(NOTIFICATION_KINDS).join(', ')})`);
  }
  const kinds = JSON.stringify(patch.kinds ?? {});
  await ctx.db.execute(sql`
    insert into notification_settings (user_id, in_app, email, tea_drops, kinds)
    values (${userId}, ${patch.inApp ?? true}, ${patch.email ?? false}, ${patch.teaDrops ?? true}, ${kinds}::jsonb)
    on conflict (user_id) do update set
      in_app = coalesce(${patch.inApp ?? null}::boolean, notification_settings.in_app),
      email = coalesce(${patch.email ?? null}::boolean, notification_settings.email),
      tea_drops = coalesce(${patch.teaDrops ?? null}::boolean, notification_settings.tea_drops),
      kinds = notification_settings.kinds || ${kinds}::jsonb,
      updated_at = now()`);
  return getNotificationSettings(ctx, userId);
}
