import { batches } from '@cfaq/db/schema/index';
import { and, asc, count, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { markProgramDays } from '../analytics/community-rollup.js';
import type { CoreContext } from '../context.js';
import { Code, conflict, notFound, unprocessable } from '../errors/index.js';
import { type DbOrTx, isUniqueViolation } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { type AuditBy, logProgramAction } from './audit.js';
import type { ProgramView } from './shape.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;
type BatchRow = typeof batches.$inferSelect;

export const toProgramView = (r: BatchRow): ProgramView => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  description: r.description,
  startDate: r.startDate,
  endDate: r.endDate,
  isDefault: r.isDefault,
  archived: r.archivedAt !== null,
  archivedAt: r.archivedAt,
  deletedAt: r.deletedAt,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** Latin letters that Unicode does not decompose into a base letter and a mark, spelt as slug libraries spell them. */
const LATIN_LETTERS: Record<string, string> = Object.fromEntries(
  (
    'ß ss|ẞ ss|æ ae|Æ ae|œ oe|Œ oe|ø o|Ø o|ł l|Ł l|đ d|Đ d|ð d|Ð d|þ th|Þ th|ħ h|Ħ h|ı i|ŀ l|Ŀ l|ŧ t|Ŧ t|ŋ ng|Ŋ ng|' +
    'ə e|Ə e|ɛ e|Ɛ e|ɔ o|Ɔ o|ɖ d|Ɖ d|ƒ f|Ƒ f|ƙ k|Ƙ k|ɓ b|Ɓ b|ɗ d|Ɗ d|ƴ y|Ƴ y|ɲ ny|Ɲ ny|ʋ v|Ʋ v|ɣ g|Ɣ g|ĸ q|ſ s'
  )
    .split('|')
    .map((pair) => pair.split(' ') as [string, string]),
);

/** Lower-case ASCII words joined by hyphens ("Spring Cohort 2026!" -> "spring-cohort-2026", "Straße" -> "strasse"). */
export function slugify(name: string): string {
  return slugPart(name) || 'program';
}

/** What slugify makes of a name's Latin letters and digits; empty when it has none. */
function slugPart(name: string): string {
  return name
    .replace(/[^ -~]/g, (c) => LATIN_LETTERS[c] ?? c)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
}

/** The first free slug among live programs: base, base-2, base-3, ... */
async function freeSlug(tx: DbOrTx, base: string, exceptId?: string): Promise<string> {
  const rows = await tx
    .select({ id: batches.id, slug: batches.slug })
    .from(batches)
    .where(and(isNull(batches.deletedAt), sql`${batches.slug} ~ ${`^${base}(-[0-9]+)?$`}`));
  const taken = new Set(rows.filter((r) => r.id !== exceptId).map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Runs a slugged write in a transaction that holds its base slug's lock, so concurrent writes of one
 * name take base, base-2, ... in turn. A retry is left for names of different bases that meet ("X 2"
 * next to a second "X"), where the unique index refuses the later one.
 */
async function withFreeSlug<T>(
  ctx: Ctx,
  name: string,
  exceptId: string | undefined,
  write: (tx: DbOrTx, slug: string) => Promise<T>,
): Promise<T> {
  const base = slugify(name);
  for (let attempt = 0; ; attempt++) {
    try {
      return await ctx.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`batches.slug:${base}`}))`);
        return write(tx, await freeSlug(tx, base, exceptId));
      });
    } catch (err) {
      if (!isUniqueViolation(err, 'batches_slug_key')) throw err;
      if (attempt >= 5) throw conflict(Code.PROGRAM_SLUG_TAKEN, 'Another program took this slug at the same time; retry');
    }
  }
}

export interface ProgramInput {
  name: string;
  description?: string | null;
  startDate?: string | null;
  endDate?: string | null;
}

function checkDates(startDate: string | null | undefined, endDate: string | null | undefined) {
  if (startDate && endDate && endDate < startDate) throw unprocessable(Code.PROGRAM_DATES_INVALID, 'endDate is before startDate');
}

export async function createProgram(ctx: Ctx, input: ProgramInput, by?: AuditBy): Promise<ProgramView> {
  checkDates(input.startDate, input.endDate);
  const row = await withFreeSlug(ctx, input.name, undefined, async (tx, slug) => {
    const [r] = await tx
      .insert(batches)
      .values({
        name: input.name,
        slug,
        description: input.description ?? null,
        startDate: input.startDate ?? null,
        endDate: input.endDate ?? null,
      })
      .returning();
    const created = r as BatchRow;
    await logProgramAction(tx, by, 'created', created.id, { name: created.name, slug: created.slug });
    return created;
  });
  return toProgramView(row);
}

async function liveProgram(ctx: Ctx, id: string): Promise<BatchRow> {
  const [row] = await ctx.db
    .select()
    .from(batches)
    .where(and(eq(batches.id, id), isNull(batches.deletedAt)))
    .limit(1);
  if (!row) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
  return row;
}

/** The live program's row, locked until the transaction ends (its checks then hold for the write), or 404. */
async function lockLiveProgram(tx: DbOrTx, id: string): Promise<BatchRow> {
  const [row] = await tx
    .select()
    .from(batches)
    .where(and(eq(batches.id, id), isNull(batches.deletedAt)))
    .for('update');
  if (!row) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
  return row;
}

export async function updateProgram(ctx: Ctx, id: string, input: Partial<ProgramInput>, by?: AuditBy): Promise<ProgramView> {
  const before = await liveProgram(ctx, id);
  const values: Partial<typeof batches.$inferInsert> = {};
  if (input.description !== undefined) values.description = input.description;
  if (input.startDate !== undefined) values.startDate = input.startDate;
  if (input.endDate !== undefined) values.endDate = input.endDate;
  const write = async (tx: DbOrTx, slug?: string) => {
    // The dates are checked against the locked row: two edits at once (one moving the start, the
    // other the end) cannot both pass against the same old row and leave the end before the start.
    const current = await lockLiveProgram(tx, id);
    checkDates(
      input.startDate === undefined ? current.startDate : input.startDate,
      input.endDate === undefined ? current.endDate : input.endDate,
    );
    const [r] = await tx
      .update(batches)
      .set({
        ...values,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(slug ? { slug } : {}),
        updatedAt: ctx.clock.now(),
      })
      .where(eq(batches.id, id))
      .returning();
    await logProgramAction(tx, by, 'updated', id, { changes: input });
    return r as BatchRow;
  };
  const row =
    input.name !== undefined && input.name !== before.name
      ? await withFreeSlug(ctx, input.name, id, write)
      : await ctx.db.transaction((tx) => write(tx));
  return toProgramView(row);
}

/** Makes a live, unarchived program the default, in one transaction (the partial unique index keeps it to one). */
export async function setDefaultProgram(ctx: Ctx, id: string, by?: AuditBy): Promise<ProgramView> {
  const target = await liveProgram(ctx, id);
  if (target.archivedAt) throw unprocessable(Code.PROGRAM_ARCHIVED, 'An archived program cannot be the default');
  const row = await ctx.db.transaction(async (tx) => {
    // Serialises default switches: each statement after the lock sees the previous switch committed.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('batches.default'))`);
    // Both rows locked, in id order, before either update: the updates' statement triggers then take the
    // search-cache generation row while this transaction holds no half of the pair, so a concurrent edit
    // of the target (row, then generation) cannot deadlock with this switch (generation, then row).
    const locked = await tx.execute<{ id: string; is_default: boolean }>(
      sql`select ${batches.id} as id, ${batches.isDefault} as is_default from ${batches} where ${batches.isDefault} or ${batches.id} = ${id} order by ${batches.id} for update`,
    );
    // Already the default: nothing changes, so nothing is written or logged.
    if (locked.rows.some((r) => r.id === id && r.is_default)) {
      const [same] = await tx
        .select()
        .from(batches)
        .where(and(eq(batches.id, id), isNull(batches.deletedAt)));
      if (same) return same;
    }
    await tx
      .update(batches)
      .set({ isDefault: false, updatedAt: ctx.clock.now() })
      .where(and(eq(batches.isDefault, true), sql`${batches.id} <> ${id}`));
    const [r] = await tx
      .update(batches)
      .set({ isDefault: true, updatedAt: ctx.clock.now() })
      .where(and(eq(batches.id, id), isNull(batches.deletedAt), isNull(batches.archivedAt)))
      .returning();
    if (!r) throw unprocessable(Code.PROGRAM_NOT_ELIGIBLE, 'The program was archived or deleted meanwhile');
    await logProgramAction(tx, by, 'default_set', id);
    return r;
  });
  return toProgramView(row);
}

/** Archives (hidden from public reads, data kept) or unarchives a program. The default program cannot be archived. */
export async function setProgramArchived(ctx: Ctx, id: string, archived: boolean, by?: AuditBy): Promise<ProgramView> {
  const row = await ctx.db.transaction(async (tx) => {
    // Locked first: a program deleted meanwhile is 404, not "the default".
    const current = await lockLiveProgram(tx, id);
    if (archived && current.isDefault) throw unprocessable(Code.PROGRAM_IS_DEFAULT, 'The default program cannot be archived');
    // Already so: nothing changes, so nothing is written or logged (the answer is the program as it is).
    if (archived === (current.archivedAt !== null)) return current;
    const [r] = await tx
      .update(batches)
      // Archiving again keeps the first archivedAt: it says when the program was archived.
      .set({ archivedAt: archived ? sql`coalesce(${batches.archivedAt}, ${ctx.clock.now()})` : null, updatedAt: ctx.clock.now() })
      .where(eq(batches.id, id))
      .returning();
    if (!r) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
    await logProgramAction(tx, by, archived ? 'archived' : 'unarchived', id);
    return r;
  });
  return toProgramView(row);
}

/** Soft delete (deletedAt). The default program cannot be deleted. */
export async function deleteProgram(ctx: Ctx, id: string, by?: AuditBy): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const current = await lockLiveProgram(tx, id);
    if (current.isDefault) throw unprocessable(Code.PROGRAM_IS_DEFAULT, 'The default program cannot be deleted');
    const [row] = await tx
      .update(batches)
      .set({ deletedAt: ctx.clock.now(), updatedAt: ctx.clock.now() })
      .where(eq(batches.id, id))
      .returning({ id: batches.id, name: batches.name });
    if (!row) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
    await markProgramDays(tx, id);
    await logProgramAction(tx, by, 'deleted', id, { name: row.name });
  });
}

export interface ListProgramsQuery extends PageQuery {
  /** Archived and deleted programs too (admins only; the route enforces it). */
  includeArchived?: boolean;
}

export async function listPrograms(ctx: Ctx, q: ListProgramsQuery): Promise<Page<ProgramView>> {
  const w = pageWindow(q);
  const where = q.includeArchived ? undefined : and(isNull(batches.deletedAt), isNull(batches.archivedAt));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(batches)
      .where(where)
      .orderBy(sql`${batches.isDefault} desc`, asc(batches.name), asc(batches.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(batches).where(where),
  ]);
  return toPage(rows.map(toProgramView), total?.n ?? 0, w);
}

/**
 * A live program by slug; archived ones only when asked (admins). The spec's "program by slugified
 * name": the parameter is slugified first, so a name or a differently cased slug finds the program
 * too (a slug, `-2` suffix included, is its own slug). A parameter without a Latin letter or digit
 * (`日本語プログラム`, `!!!`) names the program of that name, if any: slugified it was the fallback
 * `program`, which found whichever program had that slug.
 */
export function getProgramBySlug(ctx: Ctx, slug: string, opts: { includeArchived?: boolean } = {}): Promise<ProgramView> {
  const part = slugPart(slug);
  const which = part ? eq(batches.slug, part) : sql`lower(${batches.name}) = lower(${slug.trim()})`;
  return oneProgram(ctx, which, opts);
}

/** A live program by id; archived ones only when asked (admins). */
export function getProgram(ctx: Ctx, id: string, opts: { includeArchived?: boolean } = {}): Promise<ProgramView> {
  return oneProgram(ctx, eq(batches.id, id), opts);
}

async function oneProgram(ctx: Ctx, which: SQL, opts: { includeArchived?: boolean }): Promise<ProgramView> {
  const [row] = await ctx.db
    .select()
    .from(batches)
    .where(and(which, isNull(batches.deletedAt), opts.includeArchived ? undefined : isNull(batches.archivedAt)))
    .limit(1);
  if (!row) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
  return toProgramView(row);
}
