import { fixedClock, HOUR_MS, runPromotionCycle } from '@cfaq/core';
import {
  adminLogs,
  batches,
  comments,
  communityPosts,
  faqReports,
  faqs,
  freshReviewLogs,
  freshReviewVotes,
  pipelineResults,
  teaNotifications,
} from '@cfaq/db/schema/index';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

type Who = { headers: { authorization: string }; id: string };
const START = '2026-03-01T12:00:00Z';
const clock = fixedClock(START);
let t: TestApp;
let admin: Who;
let moderator: Who;
let user: Who;
let voters: Who[];
let defaultId: string;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp({ clock, env: GENEROUS_LIMITS });
  [admin, moderator, user] = await Promise.all([t.signIn('admin'), t.signIn('moderator'), t.signIn('user')]);
  voters = await Promise.all(Array.from({ length: 3 }, () => t.signIn('user')));
  const [b] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
  defaultId = b?.id as string;
});
afterAll(async () => {
  await t.close();
});

async function insertFaq(values: Partial<typeof faqs.$inferInsert> = {}) {
  const [row] = await t.ctx.db
    .insert(faqs)
    .values({ batchId: defaultId, question: 'How do I reset my badge?', answer: 'Ask the front desk.', ...values })
    .returning();
  return row as typeof faqs.$inferSelect;
}
const faqRow = async (id: string) => (await t.ctx.db.select().from(faqs).where(eq(faqs.id, id)))[0] as typeof faqs.$inferSelect;
const post = (url: string, who: Who | null, payload?: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: who ? who.headers : {}, ...(payload !== undefined ? { payload } : {}) });
const get = (url: string, who: Who | null) => t.app.inject({ method: 'GET', url, headers: who ? who.headers : {} });
const patch = (url: string, who: Who | null, payload?: Record<string, unknown>) =>
  t.app.inject({ method: 'PATCH', url, headers: who ? who.headers : {}, ...(payload !== undefined ? { payload } : {}) });

describe('escalated FAQs (moderator side of freshness)', () => {
  it('lists update_requested FAQs with the tally, the suggestions of the current cycle and the latest audit', async () => {
    const faq = await insertFaq({ question: 'Escalated one?', reviewStatus: 'update_requested', reviewCycle: 2, escalatedAt: clock.now() });
    const other = await insertFaq({
      question: 'Still pending?',
      reviewStatus: 'pending_review',
      reviewCycle: 1,
      flagType: 'manual',
      flagReason: 'old',
    });
    await t.ctx.db.insert(freshReviewVotes).values([
      { faqId: faq.id, cycle: 2, voterId: (voters[0] as Who).id, verdict: 'needs_update', suggestion: 'The desk moved to room 4' },
      { faqId: faq.id, cycle: 2, voterId: (voters[1] as Who).id, verdict: 'needs_update' },
      { faqId: faq.id, cycle: 2, voterId: (voters[2] as Who).id, verdict: 'still_accurate' },
      // an older cycle's suggestion is not shown
      { faqId: faq.id, cycle: 1, voterId: (voters[0] as Who).id, verdict: 'needs_update', suggestion: 'old cycle' },
    ]);
    await t.ctx.db.insert(pipelineResults).values([
      {
        pipeline: 'faq_audit',
        targetModel: 'FAQ',
        targetId: faq.id,
        targetTitle: faq.question,
        verdict: 'drift_detected',
        score: 0.7,
        confidence: 0.8,
        flagged: true,
        sources: ['k1'],
        metadata: { reason: 'room changed' },
        checkedAt: new Date(clock.now().getTime() - HOUR_MS),
      },
      {
        pipeline: 'faq_audit',
        targetModel: 'FAQ',
        targetId: faq.id,
        targetTitle: faq.question,
        verdict: 'correct',
        score: 0.9,
        confidence: 0.8,
        flagged: false,
        checkedAt: new Date(clock.now().getTime() - 2 * HOUR_MS),
      },
    ]);
    const res = await get('/api/admin/escalated', admin);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { items: Record<string, unknown>[]; total: number };
    expect(body.items.map((i) => i.id)).toContain(faq.id);
    expect(body.items.map((i) => i.id)).not.toContain(other.id);
    const item = body.items.find((i) => i.id === faq.id);
    expect(item).toMatchObject({
      reviewStatus: 'update_requested',
      tally: { stillAccurate: 1, needsUpdate: 2 },
      suggestions: [{ voterId: (voters[0] as Who).id, verdict: 'needs_update', suggestion: 'The desk moved to room 4' }],
      latestAudit: { verdict: 'drift_detected', score: expect.closeTo(0.7, 5), reason: 'room changed', sources: ['k1'] },
    });

    const queue = (await get('/api/admin/faqs/review', admin)).json() as { items: Record<string, unknown>[] };
    expect(queue.items.map((i) => i.id)).toEqual(expect.arrayContaining([faq.id, other.id]));
    expect(queue.items.find((i) => i.id === other.id)).toMatchObject({ flagType: 'manual', flagReason: 'old', latestAudit: null });
    const onlyPending = (await get('/api/admin/faqs/review?reviewStatus=pending_review&flagType=manual', admin)).json() as {
      items: { id: string }[];
    };
    expect(onlyPending.items.map((i) => i.id)).toContain(other.id);
    expect(onlyPending.items.map((i) => i.id)).not.toContain(faq.id);
    expectProblem(await get('/api/admin/faqs/review?reviewStatus=nope', admin), 400);
  });

  it('verify: update_requested -> verified with lastVerifiedDate now, logged; any other state 422; missing 404', async () => {
    const faq = await insertFaq({
      question: 'Verify me?',
      reviewStatus: 'update_requested',
      reviewCycle: 3,
      flagType: 'auto',
      flagReason: '[Freshness] x',
      flaggedAt: new Date('2026-02-01T00:00:00Z'),
      lastVerifiedDate: new Date('2025-01-01T00:00:00Z'),
    });
    const res = await post(`/api/admin/escalated/${faq.id}/verify`, admin);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      reviewStatus: 'verified',
      lastVerifiedDate: clock.now().toISOString(),
      flaggedAt: null,
      flagType: null,
    });
    const logs = await t.ctx.db.select().from(freshReviewLogs).where(eq(freshReviewLogs.faqId, faq.id));
    expect(logs).toMatchObject([{ action: 'verified', fromStatus: 'update_requested', toStatus: 'verified', actorId: admin.id, cycle: 3 }]);
    expectProblem(await post(`/api/admin/escalated/${faq.id}/verify`, admin), 422, 'FAQ_NOT_ESCALATED');
    expectProblem(await post(`/api/admin/escalated/${MISSING}/verify`, admin), 404);
    expectProblem(await post('/api/admin/escalated/not-a-uuid/verify', admin), 400);
  });

  it('dismiss: needs a reason, which goes to the admin log; FAQ verified', async () => {
    const faq = await insertFaq({ question: 'Dismiss me?', reviewStatus: 'update_requested', reviewCycle: 1 });
    const missing = expectProblem(await post(`/api/admin/escalated/${faq.id}/dismiss`, admin, {}), 400);
    expect(JSON.stringify(missing.errors)).toContain('reason');
    const res = await post(`/api/admin/escalated/${faq.id}/dismiss`, admin, { reason: 'Votes were a brigade' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ reviewStatus: 'verified', lastVerifiedDate: clock.now().toISOString() });
    const logs = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, faq.id));
    expect(logs).toMatchObject([{ action: 'faq.escalation_dismissed', reason: 'Votes were a brigade', actorId: admin.id }]);
    const review = await t.ctx.db.select().from(freshReviewLogs).where(eq(freshReviewLogs.faqId, faq.id));
    expect(review).toMatchObject([{ action: 'dismissed', reason: 'Votes were a brigade' }]);
  });

  it('access: /admin/escalated is admin-only; moderators verify and dismiss through /faq/:id/escalation/*', async () => {
    const a = await insertFaq({ question: 'Moderator verify?', reviewStatus: 'update_requested' });
    const b = await insertFaq({ question: 'Moderator dismiss?', reviewStatus: 'update_requested' });
    for (const who of [moderator, user]) {
      expectProblem(await get('/api/admin/escalated', who), 403);
      expectProblem(await get('/api/admin/faqs/review', who), 403);
      expectProblem(await post(`/api/admin/escalated/${a.id}/verify`, who), 403);
      expectProblem(await post(`/api/admin/escalated/${a.id}/dismiss`, who, { reason: 'nope nope' }), 403);
    }
    expectProblem(await get('/api/admin/escalated', null), 401);
    expectProblem(await post(`/api/faq/${a.id}/escalation/verify`, user), 403);
    expectProblem(await post(`/api/faq/${a.id}/escalation/verify`, null), 401);
    expect((await post(`/api/faq/${a.id}/escalation/verify`, moderator)).json()).toMatchObject({ reviewStatus: 'verified' });
    expectProblem(await post(`/api/faq/${b.id}/escalation/dismiss`, moderator, {}), 400);
    expect((await post(`/api/faq/${b.id}/escalation/dismiss`, moderator, { reason: 'Fine as is' })).json()).toMatchObject({
      reviewStatus: 'verified',
    });
    const [log] = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, b.id));
    expect(log).toMatchObject({ action: 'faq.escalation_dismissed', actorId: moderator.id, details: { role: 'moderator' } });
    expect((await faqRow(a.id)).reviewStatus).toBe('verified');
  });
});

describe('promotion cycle', () => {
  let poster: Who;
  beforeAll(async () => {
    poster = await t.signIn('user');
  });

  async function answeredPost(title: string, net: number, opts: { accepted?: boolean } = {}) {
    const [p] = await t.ctx.db
      .insert(communityPosts)
      .values({
        batchId: defaultId,
        authorId: poster.id,
        title,
        body: 'body text',
        status: 'answered',
        upvotes: Math.max(net, 0),
        downvotes: Math.max(-net, 0),
      })
      .returning({ id: communityPosts.id });
    const postId = p?.id as string;
    const [c] = await t.ctx.db
      .insert(comments)
      .values({ postId, authorId: admin.id, body: `Answer to ${title}`, isAccepted: opts.accepted ?? true })
      .returning({ id: comments.id });
    if (opts.accepted ?? true) await t.ctx.db.update(communityPosts).set({ acceptedCommentId: c?.id }).where(eq(communityPosts.id, postId));
    return postId;
  }
  const faqOfPost = async (postId: string) =>
    (
      await t.ctx.db
        .select()
        .from(faqs)
        .where(and(eq(faqs.sourceId, postId), eq(faqs.source, 'community_post')))
    )[0];

  it('nominates answered posts at PROMOTION_MIN_SUPPORT net votes (not below), promotes at the window boundary, not before', async () => {
    clock.set(START);
    const supported = await answeredPost('How early can I check in?', 3);
    const weak = await answeredPost('Is there parking nearby?', 2);
    const noAnswer = await answeredPost('Anyone know the wifi?', 5, { accepted: false });
    const run1 = await runPromotionCycle(t.ctx);
    const faq = await faqOfPost(supported);
    expect(faq).toMatchObject({
      reviewStatus: 'draft',
      promotionStatus: 'community_pending',
      answer: 'Answer to How early can I check in?',
      question: 'How early can I check in?',
    });
    expect(faq?.promotionEligibleAt?.toISOString()).toBe(new Date(clock.now().getTime() + 48 * HOUR_MS).toISOString());
    expect(run1.nominated).toContain(faq?.id);
    expect(await faqOfPost(weak)).toBeUndefined();
    expect(await faqOfPost(noAnswer)).toBeUndefined();
    const [linked] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, supported));
    expect(linked?.convertedFaqId).toBe(faq?.id);

    // listed, not yet promotable
    const list = (await get('/api/admin/faqs/community-pending', admin)).json() as { items: Record<string, unknown>[] };
    expect(list.items.find((i) => i.id === faq?.id)).toMatchObject({
      support: 3,
      autoPromotable: false,
      promotionStatus: 'community_pending',
    });

    // 1 ms before the window ends: nothing
    clock.set(new Date(new Date(START).getTime() + 48 * HOUR_MS - 1));
    expect((await runPromotionCycle(t.ctx)).promoted).not.toContain(faq?.id);
    expect((await faqRow(faq?.id as string)).reviewStatus).toBe('draft');
    // at the boundary: promoted, with a faq_approved tea drop
    clock.set(new Date(new Date(START).getTime() + 48 * HOUR_MS));
    expect((await runPromotionCycle(t.ctx)).promoted).toContain(faq?.id);
    expect(await faqRow(faq?.id as string)).toMatchObject({ reviewStatus: 'approved', promotionStatus: 'promoted' });
    const drops = await t.ctx.db
      .select()
      .from(teaNotifications)
      .where(eq(teaNotifications.refId, faq?.id as string));
    expect(drops).toMatchObject([{ kind: 'faq_approved', userId: null }]);
    // idempotent
    expect(await runPromotionCycle(t.ctx)).toMatchObject({ promoted: [] });
  });

  it('posts resolved without an answer to promote never fill the batch: a newer answered one behind fifty of them is nominated', async () => {
    clock.set(START);
    for (let i = 0; i < 50; i++) await answeredPost(`Resolved by its author ${i}?`, 4, { accepted: false });
    await t.ctx.db.execute(
      sql`update community_posts set created_at = now() - interval '10 days' where title like 'Resolved by its author%'`,
    );
    const behind = await answeredPost('Where is the lost and found?', 3);
    await runPromotionCycle(t.ctx);
    expect(await faqOfPost(behind)).toMatchObject({ promotionStatus: 'community_pending' });
  });

  it('an objection stops automatic promotion; support falling below the minimum holds it; promote approves now', async () => {
    clock.set(START);
    const objected = await answeredPost('Can I bring a guest?', 4);
    const fading = await answeredPost('Is lunch provided?', 3);
    await runPromotionCycle(t.ctx);
    const a = (await faqOfPost(objected)) as typeof faqs.$inferSelect;
    const b = (await faqOfPost(fading)) as typeof faqs.$inferSelect;

    const missingReason = expectProblem(await post(`/api/admin/faqs/${a.id}/object`, admin, {}), 400);
    expect(JSON.stringify(missingReason.errors)).toContain('reason');
    const res = await post(`/api/admin/faqs/${a.id}/object`, admin, { reason: 'Guest policy is changing' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      promotionStatus: 'objected',
      objectionCount: 1,
      lastObjection: { reason: 'Guest policy is changing', actorId: admin.id },
    });
    await t.ctx.db.update(communityPosts).set({ upvotes: 5, downvotes: 3 }).where(eq(communityPosts.id, fading));

    clock.set(new Date(new Date(START).getTime() + 72 * HOUR_MS));
    const run = await runPromotionCycle(t.ctx);
    expect(run.promoted).not.toContain(a.id);
    expect(run.promoted).not.toContain(b.id);
    expect((await faqRow(a.id)).reviewStatus).toBe('draft');
    expect((await faqRow(b.id)).reviewStatus).toBe('draft');

    const objectedList = (await get('/api/admin/faqs/community-pending?status=objected', admin)).json() as { items: { id: string }[] };
    expect(objectedList.items.map((i) => i.id)).toEqual([a.id]);

    const promoted = await post(`/api/admin/faqs/${a.id}/promote`, admin);
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ reviewStatus: 'approved', promotionStatus: 'promoted' });
    expect(await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, a.id))).toHaveLength(1);
    expectProblem(await post(`/api/admin/faqs/${a.id}/promote`, admin), 422, 'FAQ_NOT_COMMUNITY_PENDING');
    expectProblem(await post(`/api/admin/faqs/${a.id}/object`, admin, { reason: 'too late now' }), 422, 'FAQ_NOT_COMMUNITY_PENDING');
    expectProblem(await post(`/api/admin/faqs/${MISSING}/promote`, admin), 404);

    // support back at the minimum: the next cycle promotes it
    await t.ctx.db.update(communityPosts).set({ upvotes: 6, downvotes: 3 }).where(eq(communityPosts.id, fading));
    expect((await runPromotionCycle(t.ctx)).promoted).toContain(b.id);
  });

  it('suggestions with an answer are community-pending but only an admin promotes them; without an answer they are plain drafts', async () => {
    clock.set(START);
    const withAnswer = await post('/api/faq/suggest', user, { question: 'Where are the lockers?', answer: 'Next to the gym.' });
    expect(withAnswer.statusCode).toBe(201);
    const bare = await post('/api/faq/suggest', user, { question: 'What time is dinner served?' });
    const sid = (withAnswer.json() as { id: string }).id;
    const bid = (bare.json() as { id: string }).id;
    expect((await faqRow(sid)).promotionStatus).toBe('community_pending');
    expect((await faqRow(bid)).promotionStatus).toBeNull();
    const list = (await get('/api/admin/faqs/community-pending', admin)).json() as { items: Record<string, unknown>[] };
    expect(list.items.find((i) => i.id === sid)).toMatchObject({ support: null, autoPromotable: false, source: 'suggestion' });
    expect(list.items.map((i) => i.id)).not.toContain(bid);
    clock.set(new Date(new Date(START).getTime() + 30 * 24 * HOUR_MS));
    expect((await runPromotionCycle(t.ctx)).promoted).not.toContain(sid);
    expect((await post(`/api/admin/faqs/${sid}/promote`, admin)).json()).toMatchObject({ reviewStatus: 'approved' });
    expectProblem(await post(`/api/admin/faqs/${bid}/promote`, admin), 422, 'FAQ_NOT_COMMUNITY_PENDING');
  });

  it('access: admin only', async () => {
    const faq = await insertFaq({ question: 'Access check?', reviewStatus: 'draft', promotionStatus: 'community_pending' });
    for (const who of [moderator, user]) {
      expectProblem(await get('/api/admin/faqs/community-pending', who), 403);
      expectProblem(await post(`/api/admin/faqs/${faq.id}/promote`, who), 403);
      expectProblem(await post(`/api/admin/faqs/${faq.id}/object`, who, { reason: 'not mine' }), 403);
    }
    expectProblem(await get('/api/admin/faqs/community-pending', null), 401);
    expectProblem(await get('/api/admin/faqs/community-pending?status=bogus', admin), 400);
  });
});

describe('FAQ reports reach staff and staff close them', () => {
  type QueueItem = { id: string; reviewStatus: string; openReportCount: number; openReports: Record<string, unknown>[] };
  type Report = { id: string; faqId: string; status: string; reason: string };
  const queue = async (query = '') =>
    (await get(`/api/admin/faqs/review?limit=100${query}`, admin)).json() as { items: QueueItem[]; total: number };
  const report = (faqId: string, who: Who, reason: string) => post(`/api/faq/${faqId}/report`, who, { reason });

  it('an approved FAQ with an open report is in the review queue with its reports; reported filters; pending items carry theirs', async () => {
    clock.set(START);
    const approved = await insertFaq({ question: 'Reported while approved?' });
    const pending = await insertFaq({ question: 'Reported while pending?', reviewStatus: 'pending_review', flagType: 'manual' });
    const quiet = await insertFaq({ question: 'Pending, not reported?', reviewStatus: 'pending_review', flagType: 'manual' });
    const escalated = await insertFaq({ question: 'Reported while escalated?', reviewStatus: 'update_requested' });
    const unreported = await insertFaq({ question: 'Approved, not reported?' });
    const created = await report(approved.id, user, 'The room number is wrong');
    expect(created.statusCode).toBe(201);
    const reportId = (created.json() as Report).id;
    expect((await report(pending.id, voters[0] as Who, 'Outdated since March')).statusCode).toBe(201);
    expect((await report(escalated.id, voters[1] as Who, 'Still wrong')).statusCode).toBe(201);

    const all = await queue();
    const ids = all.items.map((i) => i.id);
    expect(ids).toEqual(expect.arrayContaining([approved.id, pending.id, quiet.id, escalated.id]));
    expect(ids).not.toContain(unreported.id);
    expect(all.items.find((i) => i.id === approved.id)).toMatchObject({
      reviewStatus: 'approved',
      openReportCount: 1,
      openReports: [{ id: reportId, reason: 'The room number is wrong', reporterId: user.id, createdAt: clock.now().toISOString() }],
    });
    expect(all.items.find((i) => i.id === pending.id)).toMatchObject({
      reviewStatus: 'pending_review',
      openReportCount: 1,
      openReports: [{ reason: 'Outdated since March', reporterId: (voters[0] as Who).id }],
    });
    expect(all.items.find((i) => i.id === quiet.id)).toMatchObject({ openReportCount: 0, openReports: [] });
    // the approved FAQ stays approved: a report is a note for staff, not a review state
    expect((await faqRow(approved.id)).reviewStatus).toBe('approved');

    const reported = (await queue('&reported=true')).items.map((i) => i.id);
    expect(reported).toEqual(expect.arrayContaining([approved.id, pending.id, escalated.id]));
    expect(reported).not.toContain(quiet.id);
    const notReported = (await queue('&reported=false')).items.map((i) => i.id);
    expect(notReported).toContain(quiet.id);
    expect(notReported).not.toContain(approved.id);
    expect(notReported).not.toContain(pending.id);
    // reviewStatus keeps its meaning: that status only, reported or not
    const onlyPending = (await queue('&reviewStatus=pending_review')).items.map((i) => i.id);
    expect(onlyPending).toEqual(expect.arrayContaining([pending.id, quiet.id]));
    expect(onlyPending).not.toContain(approved.id);
    expect((await queue('&reviewStatus=pending_review&reported=true')).items.map((i) => i.id)).not.toContain(quiet.id);
    // another status names its reported FAQs (they are in the queue only through their reports)
    const approvedOnes = (await queue('&reviewStatus=approved')).items.map((i) => i.id);
    expect(approvedOnes).toContain(approved.id);
    expect(approvedOnes).not.toContain(pending.id);
    expect((await queue('&flagType=manual')).items.map((i) => i.id)).not.toContain(approved.id);
    // A program that does not exist is 404 (as on every route taking batchId), not an empty queue.
    expectProblem(await get(`/api/admin/faqs/review?batchId=${MISSING}`, admin), 404, 'PROGRAM_NOT_FOUND');
    expectProblem(await get('/api/admin/faqs/review?reported=maybe', admin), 400);
    // pagination still counts every listed item
    const first = (await get('/api/admin/faqs/review?reported=true&limit=1', admin)).json() as { items: unknown[]; total: number };
    expect(first.items).toHaveLength(1);
    expect(first.total).toBe(reported.length);

    const esc = (await get('/api/admin/escalated?limit=100', admin)).json() as { items: QueueItem[] };
    expect(esc.items.find((i) => i.id === escalated.id)).toMatchObject({ openReportCount: 1, openReports: [{ reason: 'Still wrong' }] });
  });

  it('lists reports, closes one (logged), 404/422/400; after closing the user reports again and the FAQ leaves the queue', async () => {
    clock.set(START);
    const faq = await insertFaq({ question: 'Close my report?' });
    const first = (await report(faq.id, user, 'Broken link in the answer')).json() as Report;
    expectProblem(await report(faq.id, user, 'Broken link, again'), 409, 'REPORT_ALREADY_OPEN');

    const open = (await get(`/api/admin/faqs/reports?faqId=${faq.id}`, admin)).json() as {
      items: Record<string, unknown>[];
      total: number;
    };
    expect(open).toMatchObject({ total: 1, page: 1, limit: 20 });
    expect(open.items).toEqual([
      {
        id: first.id,
        faqId: faq.id,
        batchId: defaultId,
        question: 'Close my report?',
        reporterId: user.id,
        reporterName: expect.any(String),
        reason: 'Broken link in the answer',
        status: 'open',
        resolvedBy: null,
        resolvedAt: null,
        createdAt: clock.now().toISOString(),
      },
    ]);
    expectProblem(await get(`/api/admin/faqs/reports?batchId=${MISSING}`, admin), 404, 'PROGRAM_NOT_FOUND');
    expectProblem(await get('/api/admin/faqs/reports?status=closed', admin), 400);

    expectProblem(await patch(`/api/admin/faqs/reports/${first.id}`, admin, { status: 'open' }), 400);
    expectProblem(await patch(`/api/admin/faqs/reports/${first.id}`, admin, {}), 400);
    expectProblem(await patch(`/api/admin/faqs/reports/${MISSING}`, admin, { status: 'dismissed' }), 404, 'REPORT_NOT_FOUND');
    clock.set(new Date(new Date(START).getTime() + HOUR_MS));
    const closed = await patch(`/api/admin/faqs/reports/${first.id}`, admin, { status: 'dismissed', note: 'The link works' });
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ id: first.id, status: 'dismissed', resolvedBy: admin.id, resolvedAt: clock.now().toISOString() });
    expectProblem(await patch(`/api/admin/faqs/reports/${first.id}`, admin, { status: 'resolved' }), 422, 'REPORT_NOT_OPEN');
    const [log] = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, first.id));
    expect(log).toMatchObject({
      action: 'faq.report_dismissed',
      targetType: 'FAQReport',
      actorId: admin.id,
      reason: 'The link works',
      batchId: defaultId,
      details: { faqId: faq.id, reporterId: user.id },
    });
    expect((await queue()).items.map((i) => i.id)).not.toContain(faq.id);
    const dismissed = (await get(`/api/admin/faqs/reports?status=dismissed&faqId=${faq.id}`, admin)).json() as { items: Report[] };
    expect(dismissed.items.map((r) => r.id)).toEqual([first.id]);
    expect(((await get(`/api/admin/faqs/reports?faqId=${faq.id}`, admin)).json() as { total: number }).total).toBe(0);

    // closed: the same user may report again, and it is back in the queue
    const again = await report(faq.id, user, 'Now the link really is broken');
    expect(again.statusCode).toBe(201);
    const second = again.json() as Report;
    expect((await queue()).items.find((i) => i.id === faq.id)).toMatchObject({ openReportCount: 1, openReports: [{ id: second.id }] });
    const resolved = await patch(`/api/admin/faqs/reports/${second.id}`, admin, { status: 'resolved' });
    expect(resolved.json()).toMatchObject({ status: 'resolved', resolvedBy: admin.id });
    const [resolvedLog] = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, second.id));
    expect(resolvedLog).toMatchObject({ action: 'faq.report_resolved', reason: null });
    const every = (await get(`/api/admin/faqs/reports?status=all&faqId=${faq.id}`, admin)).json() as { items: Report[] };
    expect(every.items.map((r) => [r.id, r.status])).toEqual([
      [second.id, 'resolved'],
      [first.id, 'dismissed'],
    ]);
  });

  it('an item carries at most 20 open reports, newest first, and counts them all', async () => {
    const faq = await insertFaq({ question: 'Reported by many?' });
    const base = new Date(START).getTime();
    await t.ctx.db.insert(faqReports).values(
      Array.from({ length: 23 }, (_, i) => ({
        faqId: faq.id,
        reporterId: null,
        reason: `report ${i}`,
        createdAt: new Date(base + i * 1000),
      })),
    );
    const item = (await queue('&reported=true')).items.find((i) => i.id === faq.id) as QueueItem;
    expect(item.openReportCount).toBe(23);
    expect(item.openReports).toHaveLength(20);
    expect(item.openReports[0]).toMatchObject({ reason: 'report 22', reporterId: null, reporterName: null });
    expect(item.openReports[19]).toMatchObject({ reason: 'report 3' });
  });

  it("verifying a FAQ's review leaves its reports open; deleting the FAQ takes them along and the log counts them", async () => {
    const faq = await insertFaq({ question: 'Reported and escalated?', reviewStatus: 'update_requested' });
    const r = (await report(faq.id, user, 'Wrong hours')).json() as Report;
    expect((await post(`/api/admin/escalated/${faq.id}/verify`, admin)).statusCode).toBe(200);
    expect((await queue()).items.find((i) => i.id === faq.id)).toMatchObject({ reviewStatus: 'verified', openReportCount: 1 });

    const res = await t.app.inject({ method: 'DELETE', url: `/api/faq/${faq.id}`, headers: admin.headers });
    expect(res.statusCode).toBe(204);
    expect(await t.ctx.db.select().from(faqReports).where(eq(faqReports.id, r.id))).toEqual([]);
    const [log] = await t.ctx.db
      .select()
      .from(adminLogs)
      .where(and(eq(adminLogs.targetId, faq.id), eq(adminLogs.action, 'faq.deleted')));
    expect(log?.details).toMatchObject({ openReports: 1 });
    expectProblem(await patch(`/api/admin/faqs/reports/${r.id}`, admin, { status: 'resolved' }), 404, 'REPORT_NOT_FOUND');
  });

  it('access: admin only', async () => {
    const faq = await insertFaq({ question: 'Who may close reports?' });
    const r = (await report(faq.id, user, 'Please check')).json() as Report;
    for (const who of [moderator, user]) {
      expectProblem(await get('/api/admin/faqs/reports', who), 403);
      expectProblem(await patch(`/api/admin/faqs/reports/${r.id}`, who, { status: 'dismissed' }), 403);
    }
    expectProblem(await get('/api/admin/faqs/reports', null), 401);
    expectProblem(await patch(`/api/admin/faqs/reports/${r.id}`, null, { status: 'dismissed' }), 401);
    expectProblem(await patch('/api/admin/faqs/reports/not-a-uuid', admin, { status: 'dismissed' }), 400);
  });
});
