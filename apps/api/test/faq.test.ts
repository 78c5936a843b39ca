import type { MemoryJobQueue } from '@cfaq/core';
import { batches, faqFeedback, faqReports, faqRevisions, faqs, teaNotifications } from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

type Headers = { headers: { authorization: string } };
let t: TestApp;
let admin: Headers;
let moderator: Headers;
let user: Headers & { id: string };
let other: Headers & { id: string };
let defaultId: string;
let programB: string;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.signIn('admin');
  moderator = await t.signIn('moderator');
  user = await t.signIn('user');
  other = await t.signIn('user');
  const [d] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
  defaultId = d?.id as string;
  const b = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Program B' } });
  programB = b.json().id;
});
afterAll(async () => {
  await t.close();
});

const sent = () => (t.jobs as MemoryJobQueue).sent;

async function newFaq(payload: Record<string, unknown> = {}, who: Headers = admin) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/faq',
    headers: who.headers,
    payload: { question: 'How do I reset my password?', answer: 'Use the reset link.', ...payload },
  });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown> & { id: string };
}

describe('FAQ create, read, update, delete', () => {
  it('staff create a FAQ in the default program with the spec fields, an embedding job and a tea drop', async () => {
    const before = sent().length;
    const faq = await newFaq({ category: 'account', freshnessTier: 'seasonal' }, moderator);
    expect(faq).toMatchObject({
      batchId: defaultId,
      question: 'How do I reset my password?',
      answer: 'Use the reset link.',
      category: 'account',
      reviewStatus: 'approved',
      flagType: null,
      flagReason: null,
      lastCheckedAt: null,
      reviewCycle: 0,
      freshnessTier: 'seasonal',
      reviewIntervalDays: 15,
      flaggedAt: null,
      source: 'manual',
      helpfulCount: 0,
      notHelpfulCount: 0,
      viewCount: 0,
    });
    expect(faq).not.toHaveProperty('embedding');
    expect(sent().slice(before)).toEqual([{ name: 'search.embed-row', payload: { table: 'faqs', id: faq.id } }]);
    const drops = await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, faq.id));
    expect(drops).toMatchObject([{ kind: 'faq_approved', userId: null, batchId: defaultId }]);
  });

  it('evergreen reports 365 days (never auto-flagged), volatile follows FAQ_VOLATILE_DAYS; drafts drop no tea', async () => {
    expect(await newFaq({ question: 'Evergreen question?' })).toMatchObject({ freshnessTier: 'evergreen', reviewIntervalDays: 365 });
    const draft = await newFaq({ question: 'Volatile draft question?', freshnessTier: 'volatile', reviewStatus: 'draft' });
    expect(draft).toMatchObject({ reviewIntervalDays: 4, reviewStatus: 'draft' });
    expect(await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, draft.id))).toHaveLength(0);
  });

  it('create validates and needs staff', async () => {
    const post = (payload: object, h = admin.headers) => t.app.inject({ method: 'POST', url: '/api/faq', headers: h, payload });
    expectProblem(await post({ question: 'Q?' }), 400);
    expectProblem(await post({ question: 'Valid question?', answer: 'a', freshnessTier: 'forever' }), 400);
    expectProblem(await post({ question: 'Valid question?', answer: 'a', embedding: [1] }), 400);
    const badCat = expectProblem(await post({ question: 'Valid question?', answer: 'a', category: 'nope' }), 400);
    expect(badCat.errors?.[0]?.path).toBe('body.category');
    expectProblem(await post({ question: 'Valid question?', answer: 'a', batchId: MISSING }), 404);
    expectProblem(await post({ question: 'Valid question?', answer: 'a' }, user.headers), 403);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/faq', payload: { question: 'Valid question?', answer: 'a' } }), 401);
  });

  it('GET /faq/:id counts a view; drafts are staff-only; unknown is 404', async () => {
    const faq = await newFaq({ question: 'Viewed question?' });
    const one = await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: faq.id, viewCount: 1 });
    // A HEAD request (a link checker, an uptime probe) answers as GET but reads nothing: no view.
    for (let i = 0; i < 3; i++) expect((await t.app.inject({ method: 'HEAD', url: `/api/faq/${faq.id}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}` })).json()).toMatchObject({ viewCount: 2 });
    const draft = await newFaq({ question: 'Hidden draft?', reviewStatus: 'draft' });
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/${draft.id}` }), 404, 'FAQ_NOT_FOUND');
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/${draft.id}`, headers: user.headers }), 404);
    expect((await t.app.inject({ method: 'GET', url: `/api/faq/${draft.id}`, headers: moderator.headers })).statusCode).toBe(200);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/${MISSING}` }), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/faq/xyz' }), 400);
  });

  it('PUT keeps a revision of what changed, re-embeds on text changes, moves the interval with the tier', async () => {
    const faq = await newFaq({ question: 'Original question?' });
    const before = sent().length;
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/faq/${faq.id}`,
      headers: moderator.headers,
      payload: { question: 'Edited question?', freshnessTier: 'volatile' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ question: 'Edited question?', freshnessTier: 'volatile', reviewIntervalDays: 4 });
    expect(sent().slice(before)).toEqual([{ name: 'search.embed-row', payload: { table: 'faqs', id: faq.id } }]);

    const tierOnly = sent().length;
    await t.app.inject({ method: 'PUT', url: `/api/faq/${faq.id}`, headers: admin.headers, payload: { freshnessTier: 'evergreen' } });
    expect(sent().length).toBe(tierOnly);

    const history = await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}/history`, headers: moderator.headers });
    expect(history.statusCode).toBe(200);
    const h = history.json() as { total: number; items: { changes: Record<string, unknown>; editorId: string }[] };
    expect(h.total).toBe(2);
    expect(h.items[0]?.changes).toEqual({
      freshnessTier: { from: 'volatile', to: 'evergreen' },
      reviewIntervalDays: { from: 4, to: 365 },
    });
    expect(h.items[1]?.changes).toEqual({
      question: { from: 'Original question?', to: 'Edited question?' },
      freshnessTier: { from: 'evergreen', to: 'volatile' },
      reviewIntervalDays: { from: 365, to: 4 },
    });

    // no change, no revision
    await t.app.inject({ method: 'PUT', url: `/api/faq/${faq.id}`, headers: admin.headers, payload: { question: 'Edited question?' } });
    expect(await t.ctx.db.select().from(faqRevisions).where(eq(faqRevisions.faqId, faq.id))).toHaveLength(2);
  });

  it('PUT publishing a draft drops a faq_approved tea drop', async () => {
    const draft = await newFaq({ question: 'Draft to publish?', reviewStatus: 'draft' });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/faq/${draft.id}`,
      headers: admin.headers,
      payload: { reviewStatus: 'approved' },
    });
    expect(res.json()).toMatchObject({ reviewStatus: 'approved' });
    const drops = await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, draft.id));
    expect(drops).toMatchObject([{ kind: 'faq_approved', userId: null }]);
    // Back to draft: staff-only again, so its drop (question and link) is withdrawn from everyone's feed.
    await t.app.inject({ method: 'PUT', url: `/api/faq/${draft.id}`, headers: admin.headers, payload: { reviewStatus: 'draft' } });
    expect(await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, draft.id))).toEqual([]);
  });

  it('PUT publishing needs an answer, and the review interval runs from publication', async () => {
    const suggested = await t.app.inject({
      method: 'POST',
      url: '/api/faq/suggest',
      headers: user.headers,
      payload: { question: 'A suggestion without an answer?' },
    });
    const id = suggested.json().id as string;
    const publish = (payload: object) => t.app.inject({ method: 'PUT', url: `/api/faq/${id}`, headers: admin.headers, payload });
    expectProblem(await publish({ reviewStatus: 'approved' }), 422, 'FAQ_NO_ANSWER');
    expect(await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, id))).toEqual([]);
    // A draft written long ago: publishing restarts its review interval rather than flagging it at once.
    const old = new Date(Date.now() - 30 * 86_400_000);
    await t.ctx.db.update(faqs).set({ createdAt: old, lastVerifiedDate: old }).where(eq(faqs.id, id));
    const before = Date.now();
    const res = await publish({ reviewStatus: 'approved', answer: 'It has one now.' });
    expect(res.json()).toMatchObject({ reviewStatus: 'approved', answer: 'It has one now.' });
    expect(new Date(res.json().lastVerifiedDate).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('history shows others no revision made while the FAQ was a draft or taking it back to one', async () => {
    const put = (id: string, payload: object) => t.app.inject({ method: 'PUT', url: `/api/faq/${id}`, headers: admin.headers, payload });
    const faq = await newFaq({ question: 'Drafted first?', answer: 'STAFF ONLY first wording', reviewStatus: 'draft' });
    await put(faq.id, { answer: 'Wording it is published with' });
    await put(faq.id, { reviewStatus: 'approved' });
    await put(faq.id, { answer: 'Public wording.' });
    await put(faq.id, { reviewStatus: 'draft', answer: 'STAFF ONLY while back in draft' });
    await put(faq.id, { answer: 'STAFF ONLY edited in draft' });
    await put(faq.id, { reviewStatus: 'approved', answer: 'Public again.' });
    const history = async (who?: Headers) =>
      (await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}/history`, ...(who ? { headers: who.headers } : {}) })).json() as {
        total: number;
        items: { changes: Record<string, { from: unknown; to: unknown }> }[];
      };
    const staff = await history(moderator);
    expect(staff.total).toBe(6);
    for (const reader of [undefined, user]) {
      const seen = await history(reader);
      expect(seen.total).toBe(1);
      expect(seen.items.map((i) => i.changes)).toEqual([{ answer: { from: 'Wording it is published with', to: 'Public wording.' } }]);
    }
  });

  it('PUT validates, needs staff, 404 for unknown', async () => {
    const faq = await newFaq({ question: 'Put checks?' });
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/faq/${faq.id}`, headers: admin.headers, payload: {} }), 400);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/faq/${faq.id}`, headers: admin.headers, payload: { reviewStatus: 'verified' } }),
      400,
    );
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/faq/${faq.id}`, headers: user.headers, payload: { answer: 'x' } }), 403);
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/faq/${MISSING}`, headers: admin.headers, payload: { answer: 'x' } }), 404);
    // History is readable by whoever may read the FAQ (staff-only drafts: 404 to others).
    expect((await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}/history`, headers: user.headers })).statusCode).toBe(200);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/${MISSING}/history`, headers: admin.headers }), 404);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}/history?limit=0`, headers: admin.headers }), 400);
  });

  it('DELETE removes a FAQ; needs staff; 404 after', async () => {
    const faq = await newFaq({ question: 'Delete me?' });
    const drops = async () => (await t.app.inject({ method: 'GET', url: '/api/notifications/tea?limit=100', headers: user.headers })).body;
    expect(await drops()).toContain(faq.id);
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/faq/${faq.id}`, headers: user.headers }), 403);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/faq/${faq.id}`, headers: moderator.headers })).statusCode).toBe(204);
    // Its "New FAQ" tea drop goes with it (it would link to a 404).
    expect(await drops()).not.toContain(faq.id);
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/faq/${faq.id}`, headers: moderator.headers }), 404);
    expectProblem(await t.app.inject({ method: 'DELETE', url: '/api/faq/bad', headers: moderator.headers }), 400);
  });
});

describe('FAQ lists, filters and program isolation', () => {
  let a1: string;
  let b1: string;
  beforeAll(async () => {
    a1 = (
      await newFaq({ question: 'Where is the venue located?', answer: 'Downtown hall.', category: 'program', freshnessTier: 'volatile' })
    ).id;
    await newFaq({ question: 'Secret draft about venue?', answer: 'x', category: 'program', reviewStatus: 'draft' });
    b1 = (await newFaq({ question: 'Program B venue question?', answer: 'B hall', batchId: programB })).id;
  });

  it('public reads see only the program asked for (default when none), never drafts', async () => {
    for (const url of ['/api/faq?limit=100', '/api/faq/paginated?limit=100']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      const body = res.json() as { items: { id: string; batchId: string; reviewStatus: string }[] };
      expect(body.items.map((f) => f.id)).toContain(a1);
      expect(body.items.map((f) => f.id)).not.toContain(b1);
      expect(body.items.every((f) => f.batchId === defaultId && f.reviewStatus !== 'draft')).toBe(true);
    }
    const b = await t.app.inject({ method: 'GET', url: `/api/faq?batchId=${programB}` });
    expect((b.json() as { items: { id: string }[] }).items.map((f) => f.id)).toEqual([b1]);
    const draftsAsUser = await t.app.inject({ method: 'GET', url: '/api/faq?reviewStatus=draft', headers: user.headers });
    expect(draftsAsUser.json()).toMatchObject({ total: 0 });
    const draftsAsStaff = await t.app.inject({ method: 'GET', url: '/api/faq?reviewStatus=draft', headers: moderator.headers });
    expect((draftsAsStaff.json() as { total: number }).total).toBeGreaterThan(0);
  });

  it('filters by category, freshnessTier and text; pages', async () => {
    const byCat = await t.app.inject({ method: 'GET', url: '/api/faq?category=program' });
    expect((byCat.json() as { items: { id: string }[] }).items.map((f) => f.id)).toEqual([a1]);
    const byTier = await t.app.inject({ method: 'GET', url: '/api/faq?freshnessTier=volatile&limit=100' });
    expect((byTier.json() as { items: { freshnessTier: string }[] }).items.every((f) => f.freshnessTier === 'volatile')).toBe(true);
    const byText = await t.app.inject({ method: 'GET', url: '/api/faq?text=venue%20located' });
    expect((byText.json() as { items: { id: string }[] }).items.map((f) => f.id)).toEqual([a1]);
    const byPart = await t.app.inject({ method: 'GET', url: '/api/faq?text=ocate' });
    expect((byPart.json() as { items: { id: string }[] }).items.map((f) => f.id)).toEqual([a1]);
    const page = await t.app.inject({ method: 'GET', url: '/api/faq/paginated?limit=1&page=2' });
    expect(page.json()).toMatchObject({ page: 2, limit: 1 });
    expect((page.json() as { items: unknown[] }).items).toHaveLength(1);
  });

  it('rejects bad filters and unknown programs', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/faq?reviewStatus=gone' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/faq?freshnessTier=x' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/faq/paginated?page=0' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq?batchId=${MISSING}` }), 404);
  });
});

describe('feedback, report, suggest', () => {
  it('feedback is one per user (upsert) with counts kept in step', async () => {
    const faq = await newFaq({ question: 'Helpful question?' });
    const fb = (h: Headers, helpful: boolean) =>
      t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/feedback`, headers: h.headers, payload: { helpful } });
    expect((await fb(user, true)).json()).toMatchObject({ helpfulCount: 1, notHelpfulCount: 0 });
    expect((await fb(user, true)).json()).toMatchObject({ helpfulCount: 1, notHelpfulCount: 0 });
    expect((await fb(user, false)).json()).toMatchObject({ helpfulCount: 0, notHelpfulCount: 1 });
    expect((await fb(other, true)).json()).toMatchObject({ helpfulCount: 1, notHelpfulCount: 1 });
    const rows = await t.ctx.db.select().from(faqFeedback).where(eq(faqFeedback.faqId, faq.id));
    expect(rows).toHaveLength(2);
  });

  it('concurrent feedback keeps the counters equal to the rows', async () => {
    const faq = await newFaq({ question: 'Busy question?' });
    const voters = await Promise.all(Array.from({ length: 8 }, () => t.signIn('user')));
    await Promise.all(
      voters.map((v, i) =>
        t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/feedback`, headers: v.headers, payload: { helpful: i % 2 === 0 } }),
      ),
    );
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, faq.id));
    expect([row?.helpfulCount, row?.notHelpfulCount]).toEqual([4, 4]);
  });

  it('feedback validates, needs sign-in, 404s', async () => {
    const faq = await newFaq({ question: 'Feedback checks?' });
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/feedback`, headers: user.headers, payload: { helpful: 'yes' } }),
      400,
    );
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/feedback`, payload: { helpful: true } }), 401);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/faq/${MISSING}/feedback`, headers: user.headers, payload: { helpful: true } }),
      404,
    );
  });

  it('a report goes to the review queue as open', async () => {
    const faq = await newFaq({ question: 'Reported question?' });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/faq/${faq.id}/report`,
      headers: user.headers,
      payload: { reason: 'The link is dead' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ faqId: faq.id, reporterId: user.id, reason: 'The link is dead', status: 'open' });
    const rows = await t.ctx.db
      .select()
      .from(faqReports)
      .where(and(eq(faqReports.faqId, faq.id), eq(faqReports.status, 'open')));
    expect(rows).toHaveLength(1);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/report`, headers: user.headers, payload: { reason: '' } }),
      400,
    );
    expectProblem(await t.app.inject({ method: 'POST', url: `/api/faq/${faq.id}/report`, payload: { reason: 'abc' } }), 401);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `/api/faq/${MISSING}/report`, headers: user.headers, payload: { reason: 'abc' } }),
      404,
    );
  });

  it('a suggestion enters as a draft with source suggestion', async () => {
    const before = sent().length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/faq/suggest',
      headers: user.headers,
      payload: { question: 'Could we get a parking FAQ?', category: 'general', batchId: programB },
    });
    expect(res.statusCode).toBe(201);
    const faq = res.json() as { id: string };
    expect(faq).toMatchObject({ reviewStatus: 'draft', source: 'suggestion', answer: '', batchId: programB, category: 'general' });
    expect(sent().slice(before)).toHaveLength(1);
    expectProblem(await t.app.inject({ method: 'GET', url: `/api/faq/${faq.id}` }), 404);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/faq/suggest', headers: user.headers, payload: { question: 'no' } }), 400);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/faq/suggest', payload: { question: 'Anonymous idea?' } }), 401);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/api/faq/suggest',
        headers: user.headers,
        payload: { question: 'Unknown program?', batchId: MISSING },
      }),
      404,
    );
  });
});
