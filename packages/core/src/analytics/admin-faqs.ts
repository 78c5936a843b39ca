import { faqs } from '@cfaq/db/schema/index';
import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { ADMIN_READER } from '../faqs/escalated.js';
import { faqColumns, toFaqView } from '../faqs/view.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type Page, pageWindow, toPage } from '../shared/pagination.js';
import { rangeView } from './range.js';
import type { AdminFaqItem, AdminFaqsQuery, FaqGrowth } from './schemas.js';
import { type DashboardQuery, resolveScope } from './scope.js';
import { bucketOfTs, filledSeries, inProgram, inRange, num } from './sql.js';

type Ctx = Pick<CoreContext, 'db' | 'clock'>;

/** When a seasonal or volatile FAQ falls due for review; evergreen FAQs never do (null). */
const reviewDue = sql<Date | null>`case when ${faqs.freshnessTier} = 'evergreen' or ${faqs.reviewIntervalDays} is null then null
  else ${faqs.lastVerifiedDate} + make_interval(days => ${faqs.reviewIntervalDays}) end`;

/**
 * `GET /admin/faqs`: every FAQ of every program (or one), any review status, with when it falls due
 * for a freshness review. Filters: reviewStatus, freshnessTier, freshness (due or fresh), flagType.
 */
export async function listAdminFaqs(ctx: Ctx, q: AdminFaqsQuery): Promise<Page<AdminFaqItem>> {
  const batchId = q.batchId ? await resolveProgramId(ctx, q.batchId, { allowArchived: true }) : null;
  const w = pageWindow(q);
  const now = ctx.clock.now();
  const dueNow = sql`(${reviewDue}) < ${now.toISOString()}::timestamptz`;
  const where = and(
    batchId ? eq(faqs.batchId, batchId) : undefined,
    q.reviewStatus ? eq(faqs.reviewStatus, q.reviewStatus) : undefined,
    q.freshnessTier ? eq(faqs.freshnessTier, q.freshnessTier) : undefined,
    q.flagType ? eq(faqs.flagType, q.flagType) : undefined,
    q.freshness === 'due' ? dueNow : q.freshness === 'fresh' ? sql`not coalesce(${dueNow}, false)` : undefined,
    sql`exists (select 1 from batches b where b.id = ${faqs.batchId} and b.deleted_at is null)`,
  );
  const order: SQL[] =
    q.sort === 'created' ? [desc(faqs.createdAt)] : q.sort === 'reviewDue' ? [sql`(${reviewDue}) asc nulls last`] : [desc(faqs.updatedAt)];
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ ...faqColumns, reviewDueAt: reviewDue })
      .from(faqs)
      .where(where)
      .orderBy(...order, asc(faqs.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(faqs).where(where),
  ]);
  return toPage(
    rows.map(({ reviewDueAt, ...faq }) => {
      const due = reviewDueAt ? new Date(reviewDueAt) : null;
      return { ...toFaqView(faq, ADMIN_READER), reviewDueAt: due, due: !!due && due < now };
    }),
    total?.n ?? 0,
    w,
  );
}

const SOURCES = ['manual', 'suggestion', 'community_post', 'conf_insight', 'transcript_knowledge'] as const;

/** `GET /admin/faqs/growth`: FAQs created per bucket and how many existed at the end of each. */
export async function faqGrowth(ctx: Ctx, q: DashboardQuery): Promise<FaqGrowth> {
  const s = await resolveScope(ctx, q, { series: true });
  const prog = inProgram(sql`batch_id`, s.batchId);
  const data = sql`select ${bucketOfTs(sql`created_at`, s.range.interval)} as bucket, count(*) as "created"
    from faqs where ${inRange(sql`created_at`, s.range)}${prog} group by 1`;
  const [series, before, sources] = await Promise.all([
    ctx.db.execute<{ bucket: string; created: number }>(filledSeries(s.range, data, ['created'])),
    ctx.db.execute<{ n: number }>(
      sql`select count(*)::int as n from faqs where created_at < ${s.range.start.toISOString()}::timestamptz${prog}`,
    ),
    ctx.db.execute<{ k: string; n: number }>(
      sql`select source::text as k, count(*)::int as n from faqs where ${inRange(sql`created_at`, s.range)}${prog} group by 1`,
    ),
  ]);
  const start = num(before.rows[0]?.n);
  let running = start;
  const rows = series.rows.map((r) => {
    running += r.created;
    return { bucket: r.bucket, created: r.created, cumulative: running };
  });
  return {
    range: rangeView(s.range),
    batchId: s.batchId,
    before: start,
    created: running - start,
    bySource: Object.fromEntries(SOURCES.map((k) => [k, sources.rows.find((r) => r.k === k)?.n ?? 0])) as FaqGrowth['bySource'],
    series: rows,
  };
}
