import { DAY_MS, fixedClock } from '@cfaq/core';
import { faqs, freshReviewLogs, freshReviewVotes } from '@cfaq/db/schema/index';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

type Headers = { headers: { authorization: string }; id: string };
const clock = fixedClock('2026-01-10T06:00:00Z');
let t: TestApp;
let admin: Headers;
let voters: Headers[];
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.signIn('admin');
  voters = await Promise.all(Array.from({ length: 7 }, () => t.signIn('user')));
});
afterAll(async () => {
  await t.close();
});

async function newFaq(payload: Record<string, unknown> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/faq',
    headers: admin.headers,
    payload: { question: 'When does registration close?', answer: 'On Friday.', ...payload },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; reviewCycle: number };
}
const faqRow = async (id: string) => (await t.ctx.db.select().from(faqs).where(eq(faqs.id, id)))[0] as typeof faqs.$inferSelect;
const logsOf = (id: string) =>
  t.ctx.db.select().from(freshReviewLogs).where(eq(freshReviewLogs.faqId, id)).orderBy(asc(freshReviewLogs.createdAt));
const flag = (id: string, h: Headers, reason = 'Dates changed this year', method: 'POST' | 'PATCH' = 'POST') =>
  t.app.inject({ method, url: `/api/faq/${id}/flag`, headers: h.headers, payload: { reason } });
const vote = (id: string, h: Headers, verdict: string, suggestion?: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/faq/${id}/vote-review`,
    headers: h.headers,
    payload: { verdict, ...(suggestion ? { suggestion } : {}) },
  });

describe('manual flag', () => {
  it('any signed-in user flags with a reason: pending_review, manual, cycle + 1, flaggedAt now, logged', async () => {
    const faq = await newFaq();
    const res = await flag(faq.id, voters[0] as Headers);
    expect(res.statusCode).toBe(200);
    // The reason is moderation text: the flagger, like every non-staff reader, gets null.
    expect(res.json()).toMatchObject({
      reviewStatus: 'pending_review',
      flagType: 'manual',
      flagReason: null,
      reviewCycle: 1,
      flaggedAt: clock.now().toISOString(),
    });
    const asAdmin = await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}`, headers: admin.headers });
    expect(asAdmin.json().flagReason).toBe('Dates changed this year');
    expect(await logsOf(faq.id)).toMatchObject([
      { action: 'flagged', fromStatus: 'approved', toStatus: 'pending_review', cycle: 1, actorId: voters[0]?.id },
    ]);
    // Already pending: accepted (any -> pending_review); the round, its votes and flaggedAt stay, the reason is replaced.
    await vote(faq.id, voters[2] as Headers, 'still_accurate');
    clock.advance(60_000);
    const again = await flag(faq.id, voters[1] as Headers, 'again', 'PATCH');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ reviewStatus: 'pending_review', reviewCycle: 1, flaggedAt: res.json().flaggedAt });
    expect((await faqRow(faq.id)).flagReason).toBe('again');
    expect(await t.ctx.db.select().from(freshReviewVotes).where(eq(freshReviewVotes.faqId, faq.id))).toHaveLength(1);
    expect((await logsOf(faq.id)).map((l) => [l.action, l.fromStatus, l.cycle])).toEqual([
      ['flagged', 'approved', 1],
      ['flagged', 'pending_review', 1],
    ]);
  });

  it('PATCH works too; verified, update_requested and draft FAQs can be flagged (any -> pending_review)', async () => {
    const faq = await newFaq({ question: 'Patch flag question?' });
    await t.ctx.db.update(faqs).set({ reviewStatus: 'update_requested', reviewCycle: 4 }).where(eq(faqs.id, faq.id));
    const res = await flag(faq.id, voters[0] as Headers, 'still wrong', 'PATCH');
    expect(res.json()).toMatchObject({ reviewStatus: 'pending_review', reviewCycle: 5 });
    const draft = await newFaq({ question: 'Draft flag question?', reviewStatus: 'draft' });
    const flagged = await flag(draft.id, admin);
    expect(flagged.statusCode).toBe(200);
    expect(flagged.json()).toMatchObject({ reviewStatus: 'pending_review', reviewCycle: 1, flagReason: 'Dates changed this year' });
    // pending_review is public: a draft without an answer stays a draft (as when publishing it).
    await t.ctx.db.update(faqs).set({ reviewStatus: 'draft', answer: '' }).where(eq(faqs.id, draft.id));
    expectProblem(await flag(draft.id, admin), 422, 'FAQ_NO_ANSWER');
    const [kept] = await t.ctx.db.select({ reviewStatus: faqs.reviewStatus }).from(faqs).where(eq(faqs.id, draft.id));
    expect(kept?.reviewStatus).toBe('draft');
  });

  it("a flag on an update_requested FAQ starts a round without the last round's escalatedAt (reads and the staff queue's order)", async () => {
    const day = 24 * 3_600_000;
    const escalated = await newFaq({ question: 'Escalated long ago?' });
    await t.ctx.db
      .update(faqs)
      .set({
        reviewStatus: 'update_requested',
        flaggedAt: new Date(clock.now().getTime() - 40 * day),
        escalatedAt: new Date(clock.now().getTime() - 30 * day),
      })
      .where(eq(faqs.id, escalated.id));
    const waiting = await newFaq({ question: 'Flagged ten days ago?' });
    await t.ctx.db
      .update(faqs)
      .set({ reviewStatus: 'pending_review', flaggedAt: new Date(clock.now().getTime() - 10 * day) })
      .where(eq(faqs.id, waiting.id));
    const res = await flag(escalated.id, voters[0] as Headers, 'wrong again');
    expect(res.json()).toMatchObject({ reviewStatus: 'pending_review', escalatedAt: null, flaggedAt: clock.now().toISOString() });
    expect((await faqRow(escalated.id)).escalatedAt).toBeNull();
    const read = await t.app.inject({ method: 'GET', url: `/api/faq/${escalated.id}` });
    expect(read.json()).toMatchObject({ escalatedAt: null });
    // The new round waits since its flag (now), after the FAQ flagged ten days ago.
    const queue = await t.app.inject({ method: 'GET', url: '/api/admin/faqs/review?limit=100', headers: admin.headers });
    const order = (queue.json() as { items: { id: string }[] }).items.map((i) => i.id);
    expect(order).toContain(escalated.id);
    expect(order.indexOf(waiting.id)).toBeLessThan(order.indexOf(escalated.id));
  });

  it('validates the reason, needs sign-in, 404s', async () => {
    const faq = await newFaq({ question: 'Flag checks?' });
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/flag`, headers: admin.headers, payload: {} }), 400);
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/flag`, payload: { reason: 'abcd' } }), 401);
    expectProblem(await flag(MISSING, admin), 404);
  });

  it('an edit cannot take a FAQ out of review; its text may change, and only a draft published drops a tea drop', async () => {
    const put = (id: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PUT', url: `/api/faq/${id}`, headers: admin.headers, payload });
    const faq = await newFaq({ question: 'Under review edit?' });
    await flag(faq.id, voters[0] as Headers);
    expectProblem(await put(faq.id, { reviewStatus: 'approved' }), 422, 'FAQ_UNDER_REVIEW');
    expectProblem(await put(faq.id, { reviewStatus: 'draft' }), 422, 'FAQ_UNDER_REVIEW');
    const edited = await put(faq.id, { answer: 'On Thursday this year.' });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ reviewStatus: 'pending_review', flagType: 'manual' });
    const drops = async () =>
      (await t.ctx.pool.query(`SELECT count(*)::int AS n FROM tea_notifications WHERE ref_id = $1`, [faq.id])).rows[0].n as number;
    const before = await drops();
    await t.ctx.db.update(faqs).set({ reviewStatus: 'verified' }).where(eq(faqs.id, faq.id));
    expect((await put(faq.id, { reviewStatus: 'approved' })).statusCode).toBe(200);
    expect(await drops()).toBe(before);
  });
});

describe('freshness votes', () => {
  it('FAQ_VERIFY_THRESHOLD still_accurate votes verify: lastVerifiedDate now, flaggedAt null, logged', async () => {
    const faq = await newFaq({ question: 'Verify by votes?' });
    await flag(faq.id, admin);
    clock.advance(DAY_MS);
    const [v1, v2, v3] = voters as [Headers, Headers, Headers];
    expect((await vote(faq.id, v1, 'still_accurate')).json()).toMatchObject({
      reviewStatus: 'pending_review',
      tally: { stillAccurate: 1, needsUpdate: 0 },
      cycle: 1,
    });
    expect((await vote(faq.id, v2, 'still_accurate')).json()).toMatchObject({
      reviewStatus: 'pending_review',
      tally: { stillAccurate: 2 },
    });
    const third = await vote(faq.id, v3, 'still_accurate');
    expect(third.json()).toMatchObject({ reviewStatus: 'verified', tally: { stillAccurate: 3, needsUpdate: 0 }, myVote: 'still_accurate' });
    const row = await faqRow(faq.id);
    expect(row).toMatchObject({ reviewStatus: 'verified', flaggedAt: null, flagType: null, flagReason: null });
    expect(row.lastVerifiedDate.toISOString()).toBe(clock.now().toISOString());
    const logs = await logsOf(faq.id);
    expect(logs.at(-1)).toMatchObject({ action: 'verified', fromStatus: 'pending_review', toStatus: 'verified', cycle: 1 });
    // voting is closed once verified
    expectProblem(await vote(faq.id, voters[3] as Headers, 'needs_update'), 422, 'FAQ_NOT_UNDER_REVIEW');
  });

  it("a vote is an upsert per faq + cycle + voter: changing one voter's mind does not add votes", async () => {
    const faq = await newFaq({ question: 'Upsert votes?' });
    await flag(faq.id, admin);
    const v = voters[0] as Headers;
    await vote(faq.id, v, 'still_accurate');
    await vote(faq.id, v, 'still_accurate');
    const switched = await vote(faq.id, v, 'needs_update', 'The deadline moved');
    expect(switched.json()).toMatchObject({ tally: { stillAccurate: 0, needsUpdate: 1 }, reviewStatus: 'pending_review' });
    const rows = await t.ctx.db.select().from(freshReviewVotes).where(eq(freshReviewVotes.faqId, faq.id));
    expect(rows).toMatchObject([{ cycle: 1, verdict: 'needs_update', suggestion: 'The deadline moved', voterId: v.id }]);
  });

  it('FAQ_VERIFY_THRESHOLD needs_update votes -> update_requested with escalatedAt', async () => {
    const faq = await newFaq({ question: 'Needs update by votes?' });
    await flag(faq.id, admin);
    await vote(faq.id, voters[0] as Headers, 'still_accurate');
    await vote(faq.id, voters[1] as Headers, 'needs_update');
    await vote(faq.id, voters[2] as Headers, 'needs_update');
    const last = await vote(faq.id, voters[3] as Headers, 'needs_update');
    expect(last.json()).toMatchObject({ reviewStatus: 'update_requested', tally: { stillAccurate: 1, needsUpdate: 3 } });
    const row = await faqRow(faq.id);
    expect(row.reviewStatus).toBe('update_requested');
    expect(row.escalatedAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await logsOf(faq.id)).at(-1)).toMatchObject({ action: 'update_requested', toStatus: 'update_requested' });
  });

  it('votes of an earlier cycle do not count in the next one', async () => {
    const faq = await newFaq({ question: 'Cycles separate votes?' });
    await flag(faq.id, admin);
    for (const v of voters.slice(0, 3)) await vote(faq.id, v, 'still_accurate');
    expect((await faqRow(faq.id)).reviewStatus).toBe('verified');
    const reflag = await flag(faq.id, admin, 'Reviewing again');
    expect(reflag.json()).toMatchObject({ reviewCycle: 2, reviewStatus: 'pending_review' });
    const res = await vote(faq.id, voters[0] as Headers, 'still_accurate');
    expect(res.json()).toMatchObject({ cycle: 2, tally: { stillAccurate: 1 }, reviewStatus: 'pending_review' });
  });

  it('parallel votes reach exactly one transition', async () => {
    const faq = await newFaq({ question: 'Parallel votes?' });
    await flag(faq.id, admin);
    const results = await Promise.all(voters.slice(0, 5).map((v) => vote(faq.id, v, 'still_accurate')));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 200, 200, 422, 422]);
    expect((await logsOf(faq.id)).filter((l) => l.action === 'verified')).toHaveLength(1);
  });

  it('voting needs pending_review (422), a valid verdict (400), sign-in (401), a known FAQ (404)', async () => {
    const faq = await newFaq({ question: 'Vote checks?' });
    expectProblem(await vote(faq.id, voters[0] as Headers, 'still_accurate'), 422, 'FAQ_NOT_UNDER_REVIEW');
    expectProblem(await vote(faq.id, voters[0] as Headers, 'maybe'), 400);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/vote-review`, payload: { verdict: 'still_accurate' } }),
      401,
    );
    expectProblem(await vote(MISSING, voters[0] as Headers, 'still_accurate'), 404);
  });
});

describe('GET /community/review-queue', () => {
  it('lists pending_review and update_requested FAQs of the program with the current cycle tally and my vote', async () => {
    const faq = await newFaq({ question: 'Queued question?' });
    await flag(faq.id, admin);
    await vote(faq.id, voters[0] as Headers, 'needs_update');
    await vote(faq.id, voters[1] as Headers, 'still_accurate');
    const res = await t.app.inject({ method: 'GET', url: '/api/community/review-queue?limit=100', headers: voters[0]?.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { items: { id: string; reviewStatus: string; tally: unknown; myVote: unknown }[] };
    expect(body.items.every((i) => ['pending_review', 'update_requested'].includes(i.reviewStatus))).toBe(true);
    expect(body.items.find((i) => i.id === faq.id)).toMatchObject({ tally: { stillAccurate: 1, needsUpdate: 1 }, myVote: 'needs_update' });
    const anon = await t.app.inject({ method: 'GET', url: '/api/community/review-queue?limit=100' });
    expect((anon.json() as typeof body).items.find((i) => i.id === faq.id)).toMatchObject({ myVote: null });
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/community/review-queue?limit=500' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/community/review-queue?batchId=${MISSING}` }), 404);
  });
});
