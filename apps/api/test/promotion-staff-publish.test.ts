import { nominatePosts, promoteDue } from '@cfaq/core';
import { batches, communityPosts, faqs, teaNotifications } from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, GENEROUS_LIMITS, type TestApp } from './helpers.js';

// Staff who publish a community-pending (or objected) FAQ through PUT /faq/:id take it off the
// promotion track: the cycle must never publish it again once staff take it back to draft.
type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let admin: Who;
let poster: Who;
let defaultId: string;

beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
  [admin, poster] = await Promise.all([t.signIn('admin'), t.signIn('user')]);
  const [b] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
  defaultId = b?.id as string;
});
afterAll(async () => {
  await t.close();
});

/** A community-pending draft from a well-supported post, its window not yet passed. */
async function pendingFaq(question: string, promotionStatus: 'community_pending' | 'objected') {
  const [p] = await t.ctx.db
    .insert(communityPosts)
    .values({ batchId: defaultId, authorId: poster.id, title: question, body: 'body', status: 'answered', upvotes: 10 })
    .returning({ id: communityPosts.id });
  const [f] = await t.ctx.db
    .insert(faqs)
    .values({
      batchId: defaultId,
      question,
      answer: 'The community answer.',
      reviewStatus: 'draft',
      source: 'community_post',
      sourceId: p?.id as string,
      promotionStatus,
      promotionEligibleAt: new Date(Date.now() + 48 * 3_600_000),
    })
    .returning({ id: faqs.id });
  return f?.id as string;
}
const put = (id: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: `/api/faq/${id}`, headers: admin.headers, payload });
const row = async (id: string) => (await t.ctx.db.select().from(faqs).where(eq(faqs.id, id)))[0] as typeof faqs.$inferSelect;
const pendingIds = async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/admin/faqs/community-pending?status=all&limit=100', headers: admin.headers });
  expect(res.statusCode).toBe(200);
  return (res.json() as { items: { id: string }[] }).items.map((i) => i.id);
};

describe('a community-pending FAQ staff publish by hand', () => {
  it('leaves the promotion track: taken back to draft, it is not listed and the cycle never republishes it', async () => {
    const id = await pendingFaq('Can I bring a guest?', 'community_pending');
    expect((await put(id, { reviewStatus: 'approved' })).statusCode).toBe(200);
    expect(await row(id)).toMatchObject({ reviewStatus: 'approved', promotionStatus: 'promoted' });
    expect((await put(id, { reviewStatus: 'draft', answer: 'Staff draft, not ready.' })).statusCode).toBe(200);
    expect(await pendingIds()).not.toContain(id);
    await t.ctx.db
      .update(faqs)
      .set({ promotionEligibleAt: new Date(Date.now() - 60_000) })
      .where(eq(faqs.id, id));
    expect(await promoteDue(t.ctx)).not.toContain(id);
    expect(await row(id)).toMatchObject({ reviewStatus: 'draft', answer: 'Staff draft, not ready.', promotionStatus: 'promoted' });
    const drops = await t.ctx.db
      .select()
      .from(teaNotifications)
      .where(and(eq(teaNotifications.refType, 'faq'), eq(teaNotifications.refId, id)));
    expect(drops).toEqual([]);
  });

  it('an objected FAQ published through PUT leaves the track too', async () => {
    const id = await pendingFaq('Is there a cloakroom?', 'objected');
    expect((await put(id, { reviewStatus: 'approved' })).statusCode).toBe(200);
    expect(await row(id)).toMatchObject({ reviewStatus: 'approved', promotionStatus: 'promoted' });
    expect((await put(id, { reviewStatus: 'draft' })).statusCode).toBe(200);
    expect(await pendingIds()).not.toContain(id);
  });

  it('an edit that leaves the status alone keeps it community-pending', async () => {
    const id = await pendingFaq('Where do I park?', 'community_pending');
    expect((await put(id, { answer: 'Level 2 of the garage.' })).statusCode).toBe(200);
    expect(await row(id)).toMatchObject({ reviewStatus: 'draft', promotionStatus: 'community_pending' });
    expect(await pendingIds()).toContain(id);
  });
});

describe('a nominated AI answer that leaves approved', () => {
  /** A supported post whose AI answer staff approved, nominated by the cycle; returns post and draft. */
  async function nominatedAiAnswer(title: string, answer: string) {
    const [p] = await t.ctx.db
      .insert(communityPosts)
      .values({ batchId: defaultId, authorId: poster.id, title, body: 'body', aiAnswerStatus: 'suggested', aiAnswer: 'Draft', upvotes: 10 })
      .returning({ id: communityPosts.id });
    const postId = p?.id as string;
    const approve = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/auto-answer/${postId}`,
      headers: admin.headers,
      payload: { action: 'approve', manualAnswer: answer },
    });
    expect(approve.statusCode).toBe(200);
    await nominatePosts(t.ctx);
    const [post] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, postId));
    const faqId = post?.convertedFaqId as string;
    expect(await row(faqId)).toMatchObject({ reviewStatus: 'draft', promotionStatus: 'community_pending', answer });
    await t.ctx.db
      .update(faqs)
      .set({ promotionEligibleAt: new Date(Date.now() - 60_000) })
      .where(eq(faqs.id, faqId));
    return { postId, faqId };
  }

  it('rejected by staff before its window ends: the cycle does not publish its text', async () => {
    const kept = await nominatedAiAnswer('How do I realign the brass screw?', 'Loosen it and realign.');
    const rejected = await nominatedAiAnswer('How do I descale the kettle?', 'Boil vinegar in it.');
    const reject = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/auto-answer/${rejected.postId}`,
      headers: admin.headers,
      payload: { action: 'reject' },
    });
    expect(reject.statusCode).toBe(200);
    const promoted = await promoteDue(t.ctx);
    expect(promoted).toContain(kept.faqId);
    expect(promoted).not.toContain(rejected.faqId);
    expect(await row(rejected.faqId)).toMatchObject({ reviewStatus: 'draft' });
    expect((await t.app.inject({ method: 'GET', url: `/api/faq/${rejected.faqId}` })).statusCode).toBe(404);
  });
});
