import { fixedClock, HOUR_MS, runPromotionCycle } from '@cfaq/core';
import {
  adminLogs,
  batches,
  comments,
  communityPosts,
  faqs,
  freshReviewLogs,
  freshReviewVotes,
  pipelineResults,
  teaNotifications,
} from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
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
    expectProblem(await get('/api/admin/faqs/review?reviewStatus=approved', admin), 400);
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
