import { faqReports, faqs, users } from '@cfaq/db/schema/index';
import { and, count, desc, eq, inArray, lte, type SQL, sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, conflict, notFound, unprocessable } from '../errors/index.js';
import { inLiveProgram } from '../programs/live.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type Actor, isUniqueViolation } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { visibleFaq } from './service.js';
import { type FaqReportItem, OPEN_REPORTS_PER_ITEM, type OpenReport, type ReportStatus, type ReportView } from './shape.js';

/**
 * A user's report on a FAQ; it waits in the staff review queue (`GET /admin/faqs/review`) as an open
 * faq_report, whatever the FAQ's review status, until staff close it (`closeFaqReport`). One open
 * report per user per FAQ (a partial unique index, migration 0016): a second while the first is open
 * is 409 REPORT_ALREADY_OPEN; once staff resolve or dismiss it the user may report again. The reason
 * is staff-only text: only its author (here, and in their data export) and staff read it.
 */
export async function reportFaq(ctx: Pick<CoreContext, 'db' | 'clock'>, actor: Actor, id: string, reason: string): Promise<ReportView> {
  await visibleFaq(ctx.db, actor, id);
  let row: typeof faqReports.$inferSelect | undefined;
  try {
    [row] = await ctx.db.insert(faqReports).values({ faqId: id, reporterId: actor.id, reason, createdAt: ctx.clock.now() }).returning();
  } catch (err) {
    if (isUniqueViolation(err, 'faq_reports_open_per_reporter_key')) {
      throw conflict(Code.REPORT_ALREADY_OPEN, 'You already have an open report on this FAQ; staff will review it');
    }
    throw err;
  }
  const r = row as typeof faqReports.$inferSelect;
  return { id: r.id, faqId: r.faqId, reporterId: r.reporterId, reason: r.reason, status: r.status, createdAt: r.createdAt };
}

/** True for a FAQ (the outer `faqs` row) with at least one open report. */
export const hasOpenReport: SQL = sql`faqs.id in (select r.faq_id from ${faqReports} r where r.status = 'open')`;
/** The number of open reports on the outer `faqs` row. */
export const openReportCount = sql<number>`(select count(*)::int from ${faqReports} r where r.faq_id = faqs.id and r.status = 'open')`;
/** When the oldest open report on the outer `faqs` row was made (null without one). */
export const oldestOpenReportAt = sql`(select min(r.created_at) from ${faqReports} r where r.faq_id = faqs.id and r.status = 'open')`;

/** The open reports of each FAQ, newest first, at most OPEN_REPORTS_PER_ITEM per FAQ. */
export async function openReportsOf(ctx: Pick<CoreContext, 'db'>, faqIds: string[]): Promise<Map<string, OpenReport[]>> {
  const out = new Map<string, OpenReport[]>();
  if (faqIds.length === 0) return out;
  const ranked = ctx.db
    .select({
      id: faqReports.id,
      faqId: faqReports.faqId,
      reporterId: faqReports.reporterId,
      reason: faqReports.reason,
      createdAt: faqReports.createdAt,
      rank: sql<number>`row_number() over (partition by ${faqReports.faqId} order by ${faqReports.createdAt} desc, ${faqReports.id} desc)`.as(
        'rank',
      ),
    })
    .from(faqReports)
    .where(and(inArray(faqReports.faqId, faqIds), eq(faqReports.status, 'open')))
    .as('ranked');
  const rows = await ctx.db
    .select({
      id: ranked.id,
      faqId: ranked.faqId,
      reporterId: ranked.reporterId,
      reporterName: users.name,
      reason: ranked.reason,
      createdAt: ranked.createdAt,
    })
    .from(ranked)
    .leftJoin(users, eq(users.id, ranked.reporterId))
    .where(lte(ranked.rank, OPEN_REPORTS_PER_ITEM))
    .orderBy(ranked.faqId, ranked.rank);
  for (const r of rows) {
    const list = out.get(r.faqId) ?? [];
    list.push({ id: r.id, reporterId: r.reporterId, reporterName: r.reporterName ?? null, reason: r.reason, createdAt: r.createdAt });
    out.set(r.faqId, list);
  }
  return out;
}

const reportItemColumns = {
  id: faqReports.id,
  faqId: faqReports.faqId,
  batchId: faqs.batchId,
  question: faqs.question,
  reporterId: faqReports.reporterId,
  reporterName: users.name,
  reason: faqReports.reason,
  status: faqReports.status,
  resolvedBy: faqReports.resolvedBy,
  resolvedAt: faqReports.resolvedAt,
  createdAt: faqReports.createdAt,
};

export interface FaqReportQuery extends PageQuery {
  status?: ReportStatus | 'all' | undefined;
  faqId?: string | undefined;
  batchId?: string | undefined;
}

/** `GET /admin/faqs/reports`: FAQ reports, newest first; open ones unless `status` says otherwise (`all`: every status). */
export async function listFaqReports(ctx: Pick<CoreContext, 'db'>, q: FaqReportQuery): Promise<Page<FaqReportItem>> {
  const w = pageWindow(q);
  const status = q.status ?? 'open';
  const batchId = q.batchId ? await resolveProgramId(ctx, q.batchId, { allowArchived: true }) : undefined;
  const where = and(
    status === 'all' ? undefined : eq(faqReports.status, status),
    q.faqId ? eq(faqReports.faqId, q.faqId) : undefined,
    batchId ? eq(faqs.batchId, batchId) : inLiveProgram(sql`faqs.batch_id`),
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(reportItemColumns)
      .from(faqReports)
      .innerJoin(faqs, eq(faqs.id, faqReports.faqId))
      .leftJoin(users, eq(users.id, faqReports.reporterId))
      .where(where)
      .orderBy(desc(faqReports.createdAt), desc(faqReports.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(faqReports).innerJoin(faqs, eq(faqs.id, faqReports.faqId)).where(where),
  ]);
  return toPage(
    rows.map((r) => ({ ...r, reporterName: r.reporterName ?? null })),
    total?.n ?? 0,
    w,
  );
}

export interface CloseReportInput {
  status: 'resolved' | 'dismissed';
  /** Why: written to the admin log with the closing. */
  note?: string | undefined;
}

/**
 * Staff close an open report: resolved (acted on) or dismissed (nothing to do), with who and when on
 * the report and an admin log entry (`faq.report_resolved` or `faq.report_dismissed`, the note as its
 * reason). The reporter may then report the FAQ again. One conditional UPDATE: of two staff closing
 * the same report one wins, the other gets 422 REPORT_NOT_OPEN. Closing a report leaves the FAQ's
 * review status alone (a FAQ that needs review is flagged through `POST /faq/:id/flag`).
 */
export async function closeFaqReport(
  ctx: Pick<CoreContext, 'db' | 'clock'>,
  actor: Actor,
  id: string,
  input: CloseReportInput,
  ip?: string,
): Promise<FaqReportItem> {
  // A report on a FAQ of a deleted program is gone with the program, as in the list.
  const inLive = sql`exists (select 1 from faqs f where f.id = faq_reports.faq_id and ${inLiveProgram(sql`f.batch_id`)})`;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const [closed] = await tx
      .update(faqReports)
      .set({ status: input.status, resolvedBy: actor.id, resolvedAt: now })
      .where(and(eq(faqReports.id, id), eq(faqReports.status, 'open'), inLive))
      .returning({ id: faqReports.id });
    if (!closed) {
      const [existing] = await tx
        .select({ status: faqReports.status })
        .from(faqReports)
        .where(and(eq(faqReports.id, id), inLive))
        .limit(1);
      if (!existing) throw notFound('FAQ report', Code.REPORT_NOT_FOUND);
      throw unprocessable(Code.REPORT_NOT_OPEN, `The report is already ${existing.status}`);
    }
    const [row] = await tx
      .select(reportItemColumns)
      .from(faqReports)
      .innerJoin(faqs, eq(faqs.id, faqReports.faqId))
      .leftJoin(users, eq(users.id, faqReports.reporterId))
      .where(eq(faqReports.id, id));
    const item = { ...(row as FaqReportItem), reporterName: row?.reporterName ?? null };
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: input.status === 'resolved' ? 'faq.report_resolved' : 'faq.report_dismissed',
      targetType: 'FAQReport',
      targetId: id,
      reason: input.note ?? null,
      details: { faqId: item.faqId, reporterId: item.reporterId, question: item.question },
      batchId: item.batchId,
      ...(ip ? { ip } : {}),
    });
    return item;
  });
}
