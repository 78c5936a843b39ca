import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, notFound } from '../errors/index.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { toDate } from '../shared/shape.js';
import type { TeaDropView } from './shape.js';

type Ctx = Pick<CoreContext, 'db'>;

export type TeaRow = {
  id: string;
  batch_id: string | null;
  kind: string;
  title: string;
  body: string | null;
  link: string | null;
  ref_type: string | null;
  ref_id: string | null;
  user_id: string | null;
  read_at: Date | string | null;
  created_at: Date | string;
};

/** The columns toTeaView reads: tea_notifications t left-joined to the caller's read row r. */
export const TEA_COLUMNS = sql`t.id, t.batch_id, t.kind, t.title, t.body, t.link, t.ref_type, t.ref_id, t.user_id, r.read_at, t.created_at`;

export const toTeaView = (r: TeaRow): TeaDropView => ({
  id: r.id,
  batchId: r.batch_id,
  kind: r.kind,
  title: r.title,
  body: r.body,
  link: r.link,
  refType: r.ref_type,
  refId: r.ref_id,
  personal: r.user_id !== null,
  read: r.read_at !== null,
  createdAt: toDate(r.created_at),
});

/**
 * A program-wide drop (alias t) whose kind the user has not switched off. Such a drop is one row for
 * everyone, written whatever each reader's settings say, so the per-kind switch applies when it is
 * read; a personal drop was checked against its user's settings when written (teaDrop). The teaDrops
 * switch is for personal drops only (README), so it does not hide these.
 */
export const wideShownTo = (userId: string) =>
  sql`not exists (select 1 from notification_settings ns where ns.user_id = ${userId} and ns.kinds -> t.kind = 'false'::jsonb)`;

/**
 * The drops a user sees in a program: their personal ones there and the program-wide ones of kinds
 * they have on. An archived program is hidden from the public but its members' own data is kept: its
 * personal drops stay readable (as its notifications and reputation), its program-wide ones do not.
 */
const visible = (userId: string, batchId: string) =>
  sql`t.batch_id = ${batchId} and (t.user_id = ${userId} or (t.user_id is null and ${wideShownTo(userId)}
    and exists (select 1 from batches b where b.id = t.batch_id and b.archived_at is null)))`;

/** The program a user's drops are read in: archived ones too (their personal drops stay theirs). */
const dropsProgram = (ctx: Ctx, batchId: string | undefined) => resolveProgramId(ctx, batchId, { allowArchived: true });

export interface TeaQuery extends PageQuery {
  batchId?: string | undefined;
  unread?: boolean | undefined;
}

/** The program's tea drops for the caller (default program when batchId is absent), newest first. */
export async function listTeaDrops(ctx: Ctx, userId: string, q: TeaQuery): Promise<Page<TeaDropView> & { unreadCount: number }> {
  const batchId = await dropsProgram(ctx, q.batchId);
  const w = pageWindow(q);
  const from = sql`tea_notifications t left join tea_notification_reads r on r.tea_notification_id = t.id and r.user_id = ${userId}`;
  const where = sql`${visible(userId, batchId)}${q.unread ? sql` and r.read_at is null` : sql``}`;
  const [rows, counts] = await Promise.all([
    ctx.db.execute<TeaRow>(sql`
      select ${TEA_COLUMNS}
      from ${from} where ${where} order by t.created_at desc, t.id desc limit ${w.limit} offset ${w.offset}`),
    ctx.db.execute<{ total: number; unread: number }>(sql`
      select count(*) filter (where ${q.unread ? sql`r.read_at is null` : sql`true`})::int as total,
             count(*) filter (where r.read_at is null)::int as unread
      from ${from} where ${visible(userId, batchId)}`),
  ]);
  const c = counts.rows[0] ?? { total: 0, unread: 0 };
  return {
    ...toPage(rows.rows.map(toTeaView), c.total, w),
    unreadCount: c.unread,
  };
}

export async function teaUnreadCount(
  ctx: Ctx,
  userId: string,
  q: { batchId?: string | undefined },
): Promise<{ count: number; batchId: string }> {
  const batchId = await dropsProgram(ctx, q.batchId);
  const res = await ctx.db.execute<{ n: number }>(sql`
    select count(*)::int as n from tea_notifications t
    where ${visible(userId, batchId)}
      and not exists (select 1 from tea_notification_reads r where r.tea_notification_id = t.id and r.user_id = ${userId})`);
  return { count: res.rows[0]?.n ?? 0, batchId };
}

/** Marks every drop the caller sees in the program read. */
export async function markAllTeaRead(ctx: Ctx, userId: string, q: { batchId?: string | undefined }): Promise<{ updated: number }> {
  const batchId = await dropsProgram(ctx, q.batchId);
  const res = await ctx.db.execute<{ n: number }>(sql`
    with ins as (
      insert into tea_notification_reads (tea_notification_id, user_id)
      select t.id, ${userId} from tea_notifications t where ${visible(userId, batchId)}
      on conflict do nothing returning 1)
    select count(*)::int as n from ins`);
  return { updated: res.rows[0]?.n ?? 0 };
}

/** Marks one drop read: the caller's personal drop or a program-wide one; another user's drop: 404. */
export async function markTeaRead(ctx: Ctx, userId: string, id: string): Promise<{ id: string; read: true }> {
  const res = await ctx.db.execute<{ id: string }>(sql`
    with d as (
      select t.id from tea_notifications t left join batches b on b.id = t.batch_id
      where t.id = ${id} and (t.user_id = ${userId} or (t.user_id is null and b.deleted_at is null))
    ), ins as (
      insert into tea_notification_reads (tea_notification_id, user_id) select id, ${userId} from d on conflict do nothing
    )
    select id from d`);
  if (!res.rows[0]) throw notFound('Tea drop', Code.TEA_DROP_NOT_FOUND);
  return { id, read: true };
}
