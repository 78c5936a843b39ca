import { faqReports, faqRevisions, faqs, teaNotifications, users } from '@cfaq/db/schema/index';
import { and, count, desc, eq, ilike, or, sql } from 'drizzle-orm';
import { writeAdminLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { embedRowJob } from '../embeddings/embed-row-job.js';
import { Code, invalidField, notFound, unprocessable } from '../errors/index.js';
import { teaDrop } from '../notifications/index.js';
import { lockProgramForWrite } from '../programs/lock.js';
import { resolveProgramId } from '../programs/resolve.js';
import { type Actor, type DbOrTx, isStaff, type Tx } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { hasVisibleText } from '../shared/text.js';
import { categoryExists } from './categories.js';
import { requireAnswer } from './require-answer.js';
import type { FaqView, FreshnessTier, ReviewStatus, RevisionView } from './shape.js';
import { type FaqRow, faqColumns, reviewIntervalFor, toFaqView } from './view.js';
import { faqVisibleTo } from './visibility.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'config' | 'jobs'>;

/** A FAQ the caller may see, or 404. */
export async function visibleFaq(db: DbOrTx, actor: Actor | null, id: string, opts: { forUpdate?: boolean } = {}): Promise<FaqRow> {
  const q = db
    .select(faqColumns)
    .from(faqs)
    .where(and(eq(faqs.id, id), faqVisibleTo(actor)))
    .limit(1);
  const [row] = opts.forUpdate ? await q.for('update', { of: faqs }) : await q;
  if (!row) throw notFound('FAQ', Code.FAQ_NOT_FOUND);
  return row;
}

export interface ListFaqsQuery extends PageQuery {
  batchId?: string | undefined;
  category?: string | undefined;
  reviewStatus?: ReviewStatus | undefined;
  freshnessTier?: FreshnessTier | undefined;
  text?: string | undefined;
}

const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listFaqs(ctx: Pick<CoreContext, 'db'>, actor: Actor | null, q: ListFaqsQuery): Promise<Page<FaqView>> {
  const w = pageWindow(q);
  const batchId = await resolveProgramId(ctx, q.batchId, { allowArchived: isStaff(actor) });
  const text = q.text?.trim();
  const where = and(
    eq(faqs.batchId, batchId),
    faqVisibleTo(actor),
    q.category ? eq(faqs.category, q.category) : undefined,
    q.reviewStatus ? eq(faqs.reviewStatus, q.reviewStatus) : undefined,
    q.freshnessTier ? eq(faqs.freshnessTier, q.freshnessTier) : undefined,
    text ? or(sql`${faqs.searchVector} @@ websearch_to_tsquery('english', ${text})`, ilike(faqs.question, likePattern(text))) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.db.select(faqColumns).from(faqs).where(where).orderBy(desc(faqs.createdAt), desc(faqs.id)).limit(w.limit).offset(w.offset),
    ctx.db.select({ n: count() }).from(faqs).where(where),
  ]);
  return toPage(
    rows.map((r) => toFaqView(r, actor)),
    total?.n ?? 0,
    w,
  );
}

/**
 * One FAQ; each read counts a view, unless `countView` is false (a HEAD request: link checkers and
 * uptime probes read no FAQ).
 */
export async function getFaq(
  ctx: Pick<CoreContext, 'db'>,
  actor: Actor | null,
  id: string,
  opts: { countView?: boolean } = {},
): Promise<FaqView> {
  const where = and(eq(faqs.id, id), faqVisibleTo(actor));
  const [row] =
    opts.countView === false
      ? await ctx.db.select(faqColumns).from(faqs).where(where).limit(1)
      : await ctx.db
          .update(faqs)
          .set({ viewCount: sql`${faqs.viewCount} + 1`, updatedAt: sql`${faqs.updatedAt}` })
          .where(where)
          .returning(faqColumns);
  if (!row) throw notFound('FAQ', Code.FAQ_NOT_FOUND);
  return toFaqView(row, actor);
}

export interface NewFaq {
  batchId: string;
  question: string;
  answer: string;
  category?: string | null;
  freshnessTier?: FreshnessTier;
  reviewStatus?: 'approved' | 'draft';
  source?: FaqRow['source'];
  sourceId?: string | null;
  /** community_pending: a draft the promotion cycle may approve (faqs/promotion.ts). */
  promotionStatus?: 'community_pending' | null;
  promotionEligibleAt?: Date | null;
}

async function checkCategory(db: DbOrTx, batchId: string, category: string | null | undefined) {
  if (category && !(await categoryExists(db, batchId, category))) {
    throw invalidField('body.category', "must be one of the program's categories (GET /faq/categories)");
  }
}

/** The program-wide tea drop of an approved FAQ. */
export async function faqApprovedDrop(tx: DbOrTx, faq: Pick<FaqRow, 'id' | 'batchId' | 'question'>) {
  await teaDrop(tx, {
    userId: null,
    batchId: faq.batchId,
    kind: 'faq_approved',
    title: 'New FAQ',
    body: faq.question,
    link: `/faq/${faq.id}`,
    refType: 'faq',
    refId: faq.id,
  });
}

/**
 * Withdraws a FAQ's "New FAQ" tea drop: the FAQ is gone or back to draft, so the drop would show what
 * only staff may see. Its place in the stream's order stays in tea_withdrawals, so a client whose last
 * event it was resumes after it.
 */
async function withdrawFaqDrops(tx: DbOrTx, faq: { id: string; batchId: string | null }) {
  // Narrowed by program first (tea_notifications_batch_idx): the drops table has no index on its reference.
  await tx.execute(sql`
    with gone as (
      delete from ${teaNotifications}
      where ${faq.batchId ? sql`batch_id = ${faq.batchId} and ` : sql``}ref_type = 'faq' and ref_id = ${faq.id}
      returning id, user_id, stream_xid)
    insert into tea_withdrawals (id, user_id, stream_xid) select id, user_id, stream_xid from gone on conflict do nothing`);
}

/** Inserts a FAQ inside the caller's transaction: interval from the tier, embedding job, tea drop when approved. */
export async function insertFaq(ctx: Ctx, tx: Tx, input: NewFaq, actorId: string | null): Promise<FaqRow> {
  await checkCategory(tx, input.batchId, input.category);
  const tier = input.freshnessTier ?? 'evergreen';
  const now = ctx.clock.now();
  const [row] = await tx
    .insert(faqs)
    .values({
      batchId: input.batchId,
      question: input.question,
      answer: input.answer,
      category: input.category ?? null,
      freshnessTier: tier,
      reviewIntervalDays: reviewIntervalFor(ctx.config, tier),
      reviewStatus: input.reviewStatus ?? 'approved',
      source: input.source ?? 'manual',
      sourceId: input.sourceId ?? null,
      promotionStatus: input.promotionStatus ?? null,
      promotionEligibleAt: input.promotionEligibleAt ?? null,
      lastVerifiedDate: now,
      createdBy: actorId,
      updatedBy: actorId,
      createdAt: now,
      updatedAt: now,
    })
    .returning(faqColumns);
  const faq = row as FaqRow;
  await ctx.jobs.send(embedRowJob, { table: 'faqs', id: faq.id }, { tx });
  if (faq.reviewStatus === 'approved') await faqApprovedDrop(tx, faq);
  return faq;
}

export interface CreateFaqInput extends Omit<NewFaq, 'batchId' | 'source' | 'sourceId'> {
  batchId?: string | undefined;
}

export async function createFaq(ctx: Ctx, actor: Actor, input: CreateFaqInput): Promise<FaqView> {
  // The program is locked for the write: a delete racing it waits, or comes first and the write is a 404.
  const row = await ctx.db.transaction(async (tx) => {
    const batchId = await lockProgramForWrite(tx, input.batchId, { allowArchived: true });
    return insertFaq(ctx, tx, { ...input, batchId }, actor.id);
  });
  return toFaqView(row, actor);
}

/** A signed-in user's proposal: enters as draft with source suggestion (community-pending when it has an answer), for staff to edit and publish. */
export async function suggestFaq(
  ctx: Ctx,
  actor: Actor,
  input: { batchId?: string | undefined; question: string; answer?: string | undefined; category?: string | undefined },
): Promise<FaqView> {
  const row = await ctx.db.transaction(async (tx) =>
    insertFaq(
      ctx,
      tx,
      {
        batchId: await lockProgramForWrite(tx, input.batchId),
        question: input.question,
        answer: input.answer ?? '',
        category: input.category ?? null,
        reviewStatus: 'draft',
        source: 'suggestion',
        // With an answer it is community-pending: listed for promotion (faqs/promotion.ts); an admin promotes it.
        ...(hasVisibleText(input.answer)
          ? {
              promotionStatus: 'community_pending' as const,
              promotionEligibleAt: new Date(ctx.clock.now().getTime() + ctx.config.PROMOTION_OBJECTION_WINDOW_HOURS * 3_600_000),
            }
          : {}),
      },
      actor.id,
    ),
  );
  return toFaqView(row, actor);
}

export interface UpdateFaqInput {
  question?: string | undefined;
  answer?: string | undefined;
  category?: string | null | undefined;
  freshnessTier?: FreshnessTier | undefined;
  /** Staff publish a draft (approved) or take a FAQ back to draft. */
  reviewStatus?: 'approved' | 'draft' | undefined;
}

const EDITABLE = ['question', 'answer', 'category', 'freshnessTier', 'reviewStatus'] as const;

/** Staff edit. Every change keeps a revision ({ field: { from, to } }); text changes re-embed; a tier change moves the interval. */
export async function updateFaq(ctx: Ctx, actor: Actor, id: string, input: UpdateFaqInput): Promise<FaqView> {
  const row = await ctx.db.transaction((tx) => updateFaqInTx(ctx, tx, actor, id, input));
  return toFaqView(row, actor);
}

/** updateFaq inside the caller's transaction (the FAQ row locked, its revision and jobs in the same transaction). */
export async function updateFaqInTx(ctx: Ctx, tx: Tx, actor: Actor, id: string, input: UpdateFaqInput): Promise<FaqRow> {
  const current = await visibleFaq(tx, actor, id, { forUpdate: true });
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of EDITABLE) {
    const to = input[key];
    if (to !== undefined && to !== current[key]) changes[key] = { from: current[key], to };
  }
  if (Object.keys(changes).length === 0) return current;
  // A FAQ under review leaves it through the review (votes, moderator verify or dismiss), which also
  // clears its flag and records the outcome; an edit of its status would skip both.
  if (changes.reviewStatus && (current.reviewStatus === 'pending_review' || current.reviewStatus === 'update_requested')) {
    throw unprocessable(
      Code.FAQ_UNDER_REVIEW,
      `the FAQ is ${current.reviewStatus}; its review decides its status (edit the text, or resolve the review)`,
    );
  }
  const publishing = changes.reviewStatus !== undefined && input.reviewStatus === 'approved' && current.reviewStatus === 'draft';
  if (publishing) requireAnswer(input.answer ?? current.answer, 'give it one (answer) in the same edit or before publishing');
  if (changes.category) await checkCategory(tx, current.batchId, input.category);
  const now = ctx.clock.now();
  const set: Partial<typeof faqs.$inferInsert> = { updatedBy: actor.id, updatedAt: now };
  if (changes.question) set.question = input.question as string;
  if (changes.answer) set.answer = input.answer as string;
  if (changes.category) set.category = input.category ?? null;
  if (changes.reviewStatus) set.reviewStatus = input.reviewStatus as ReviewStatus;
  // Its review interval runs from publication (as a promotion's), not from when the draft was written.
  if (publishing) set.lastVerifiedDate = now;
  if (changes.freshnessTier) {
    const tier = input.freshnessTier as FreshnessTier;
    set.freshnessTier = tier;
    const interval = reviewIntervalFor(ctx.config, tier);
    set.reviewIntervalDays = interval;
    if (interval !== current.reviewIntervalDays) changes.reviewIntervalDays = { from: current.reviewIntervalDays, to: interval };
  }
  // Staff deciding the status by hand take a community-pending or objected FAQ off the promotion track
  // (promoted, as an admin's promote): else, taken back to draft later, it would be a community-pending
  // draft again and the cycle would publish staff's unpublished text.
  const offPromotionTrack = changes.reviewStatus
    ? {
        promotionStatus: sql`case when ${faqs.promotionStatus} in ('community_pending', 'objected') then 'promoted'::faq_promotion_status
          else ${faqs.promotionStatus} end`,
      }
    : {};
  const [updated] = await tx
    .update(faqs)
    .set({ ...set, ...offPromotionTrack })
    .where(eq(faqs.id, id))
    .returning(faqColumns);
  await tx.insert(faqRevisions).values({ faqId: id, editorId: actor.id, changes, statusBefore: current.reviewStatus, createdAt: now });
  if (changes.question || changes.answer) await ctx.jobs.send(embedRowJob, { table: 'faqs', id }, { tx });
  if (changes.reviewStatus && input.reviewStatus === 'draft') await withdrawFaqDrops(tx, current);
  // Publishing announces a new FAQ; a verified FAQ set back to approved is not new.
  if (publishing) await faqApprovedDrop(tx, updated as FaqRow);
  return updated as FaqRow;
}

/**
 * Staff delete (permanent), recorded in the admin log with the question, in the same transaction. The
 * FAQ's reports go with it (a foreign-key cascade): the log entry counts the open ones (`openReports`).
 */
export async function deleteFaq(ctx: Pick<CoreContext, 'db'>, actor: Actor, id: string, ip?: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const faq = await visibleFaq(tx, actor, id, { forUpdate: true });
    const [open] = await tx
      .select({ n: count() })
      .from(faqReports)
      .where(and(eq(faqReports.faqId, id), eq(faqReports.status, 'open')));
    await tx.delete(faqs).where(eq(faqs.id, id));
    await withdrawFaqDrops(tx, faq);
    await writeAdminLog(tx, {
      actorId: actor.id,
      action: 'faq.deleted',
      targetType: 'FAQ',
      targetId: id,
      batchId: faq.batchId,
      details: { question: faq.question, reviewStatus: faq.reviewStatus, openReports: open?.n ?? 0 },
      ...(ip ? { ip } : {}),
    });
  });
}

/**
 * The revisions of a FAQ the caller may read (anyone for a public FAQ, staff for drafts). Only staff
 * see the revisions made while it was a draft or taking it back to one: their text was never public.
 */
export async function faqHistory(ctx: Pick<CoreContext, 'db'>, actor: Actor | null, id: string, q: PageQuery): Promise<Page<RevisionView>> {
  await visibleFaq(ctx.db, actor, id);
  const w = pageWindow(q);
  const where =
    actor && isStaff(actor)
      ? eq(faqRevisions.faqId, id)
      : and(
          eq(faqRevisions.faqId, id),
          sql`${faqRevisions.statusBefore} is distinct from 'draft'`,
          sql`${faqRevisions.changes}->'reviewStatus'->>'to' is distinct from 'draft'`,
        );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({
        id: faqRevisions.id,
        faqId: faqRevisions.faqId,
        editorId: faqRevisions.editorId,
        editorName: users.name,
        changes: faqRevisions.changes,
        createdAt: faqRevisions.createdAt,
      })
      .from(faqRevisions)
      .leftJoin(users, eq(users.id, faqRevisions.editorId))
      .where(where)
      .orderBy(desc(faqRevisions.createdAt), desc(faqRevisions.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(faqRevisions).where(where),
  ]);
  return toPage(rows, total?.n ?? 0, w);
}
