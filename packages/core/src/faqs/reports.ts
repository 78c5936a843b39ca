import { faqReports } from '@cfaq/db/schema/index';
import type { CoreContext } from '../context.js';
import { Code, conflict } from '../errors/index.js';
import { type Actor, isUniqueViolation } from '../shared/db.js';
import { visibleFaq } from './service.js';
import type { ReportView } from './shape.js';

/**
 * A user's report on a FAQ; it waits in the review queue as an open faq_report. One open report per
 * user per FAQ (a partial unique index, migration 0016): a second while the first is open is 409
 * REPORT_ALREADY_OPEN; once staff resolve or dismiss it the user may report again. The reason is
 * staff-only text: only its author (here, and in their data export) and staff read it.
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
