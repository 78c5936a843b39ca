import { communityPosts, faqs } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let admin: Who;
let moderator: Who;
let user: Who;
let other: Who;

beforeAll(async () => {
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, SEARCH_LOG_FLUSH_MS: '600000' } });
  [admin, moderator, user, other] = await Promise.all([t.signIn('admin'), t.signIn('moderator'), t.signIn('user'), t.signIn('user')]);
});
afterAll(async () => {
  await t.close();
});

const get = (url: string, who?: Who) => t.app.inject({ method: 'GET', url, ...(who ? { headers: who.headers } : {}) });

async function newFaq(question: string, extra: Record<string, unknown> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/faq',
    headers: admin.headers,
    payload: { question, answer: 'An answer.', ...extra },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; reviewIntervalDays: number };
}

describe('moderation text is for staff only', () => {
  it('a manual flag reason never reaches a non-staff read path', async () => {
    const phishing = 'Visit http://phish.example/login to verify';
    const faq = await newFaq('Where do I collect my badge?');
    const flagged = await t.app.inject({
      method: 'POST',
      url: `/api/faq/${faq.id}/flag`,
      headers: user.headers,
      payload: { reason: phishing },
    });
    expect(flagged.statusCode).toBe(200);
    const readers: (Who | undefined)[] = [undefined, user, other];
    for (const who of readers) {
      for (const url of [
        `/api/faq/${faq.id}`,
        '/api/faq',
        '/api/faq/paginated',
        '/api/community/review-queue',
        `/api/faq/${faq.id}/history`,
      ]) {
        const res = await get(url, who);
        expect(res.statusCode, url).toBe(200);
        expect(res.body, `${url} as ${who?.id ?? 'anonymous'}`).not.toContain('phish.example');
      }
      expect((await get(`/api/faq/${faq.id}`, who)).json()).toMatchObject({
        flagType: 'manual',
        flagReason: null,
        reviewStatus: 'pending_review',
      });
    }
    for (const who of [admin, moderator]) {
      expect((await get(`/api/faq/${faq.id}`, who)).json().flagReason).toBe(phishing);
      const queue = (await get('/api/community/review-queue', who)).json() as { items: { id: string; flagReason: string | null }[] };
      expect(queue.items.find((i) => i.id === faq.id)?.flagReason).toBe(phishing);
    }
  });

  it('a report reason reaches staff and its author only, never another read path', async () => {
    const secret = 'Reported: see http://report-secret.example for the real hours';
    const faq = await newFaq('When does the library open?');
    const reported = await t.app.inject({
      method: 'POST',
      url: `/api/faq/${faq.id}/report`,
      headers: user.headers,
      payload: { reason: secret },
    });
    expect(reported.statusCode).toBe(201);
    const readers: (Who | undefined)[] = [undefined, user, other];
    for (const who of readers) {
      for (const url of [
        `/api/faq/${faq.id}`,
        '/api/faq',
        '/api/faq/paginated',
        '/api/community/review-queue',
        `/api/faq/${faq.id}/history`,
        '/api/faq/search?q=library%20open',
        '/api/search?q=library%20open',
      ]) {
        const res = await get(url, who);
        expect(res.statusCode, url).toBe(200);
        expect(res.body, `${url} as ${who?.id ?? 'anonymous'}`).not.toContain('report-secret.example');
      }
      for (const url of ['/api/admin/faqs/review', '/api/admin/faqs/reports']) {
        const res = await get(url, who);
        expect(res.statusCode, url).toBe(who ? 403 : 401);
        expect(res.body).not.toContain('report-secret.example');
      }
    }
    // another user's export has none of it; the reporter's own export has their report
    expect((await get('/api/auth/export', other)).body).not.toContain('report-secret.example');
    const mine = (await get('/api/auth/export', user)).json() as { activity: { faqReports: { faqId: string; reason: string }[] } };
    expect(mine.activity.faqReports).toContainEqual(expect.objectContaining({ faqId: faq.id, reason: secret, status: 'open' }));
    const queue = (await get('/api/admin/faqs/review?reported=true', admin)).json() as {
      items: { id: string; openReports: { reason: string }[] }[];
    };
    expect(queue.items.find((i) => i.id === faq.id)?.openReports).toEqual([expect.objectContaining({ reason: secret })]);
  });

  it("a post's escalation reason and an unapproved AI answer are staff-only", async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/community/posts',
      headers: user.headers,
      payload: { title: 'Is the lab open on Sunday?', body: 'Asking for the weekend.' },
    });
    const postId = created.json().id as string;
    await t.ctx.db
      .update(communityPosts)
      .set({
        aiAnswer: 'Unreviewed machine answer',
        aiAnswerConfidence: 0.7,
        aiAnswerStatus: 'escalated',
        aiAnswerSource: 'ai_generated',
        aiAnswerEscalatedReason: 'sensitive: mentions self-harm',
        aiAnswerEscalatedAt: new Date(),
        aiAnswerReviewedAt: new Date(),
        aiAnswerReviewedBy: moderator.id,
      })
      .where(eq(communityPosts.id, postId));
    for (const who of [undefined, user, other]) {
      for (const url of [`/api/community/posts/${postId}`, '/api/community/posts']) {
        const res = await get(url, who);
        expect(res.statusCode).toBe(200);
        expect(res.body).not.toContain('self-harm');
        expect(res.body).not.toContain('Unreviewed machine answer');
      }
      expect((await get(`/api/community/posts/${postId}`, who)).json()).toMatchObject({
        aiAnswerStatus: 'escalated',
        aiAnswer: null,
        aiAnswerEscalatedReason: null,
        aiAnswerReviewedBy: null,
      });
      // Which staff member reviewed the answer is staff-only (as verifiedBy), the time is not.
      for (const url of [`/api/community/posts/${postId}`, '/api/community/posts'])
        expect((await get(url, who)).body).not.toContain(moderator.id);
    }
    expect((await get(`/api/community/posts/${postId}`, moderator)).json()).toMatchObject({
      aiAnswer: 'Unreviewed machine answer',
      aiAnswerEscalatedReason: 'sensitive: mentions self-harm',
      aiAnswerReviewedBy: moderator.id,
    });
    // Once approved the answer is public; the reason stays staff-only.
    await t.ctx.db.update(communityPosts).set({ aiAnswerStatus: 'approved' }).where(eq(communityPosts.id, postId));
    expect((await get(`/api/community/posts/${postId}`)).json()).toMatchObject({
      aiAnswer: 'Unreviewed machine answer',
      aiAnswerEscalatedReason: null,
      aiAnswerReviewedBy: null,
    });
  });

  it('which staff member marked a comment "does not answer" is staff-only; the post author\'s own mark is public', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/community/posts',
      headers: user.headers,
      payload: { title: 'Where is the printer?', body: 'Second floor?' },
    });
    const postId = created.json().id as string;
    const comment = async (body: string) =>
      (
        await t.app.inject({ method: 'POST', url: `/api/community/posts/${postId}/comments`, headers: other.headers, payload: { body } })
      ).json().id as string;
    const [byStaff, byAuthor] = [await comment('Try the library.'), await comment('Ask at the desk.')];
    const mark = (cid: string, who: Who) =>
      t.app.inject({ method: 'PUT', url: `/api/community/posts/${postId}/comments/${cid}/dna`, headers: who.headers });
    expect((await mark(byStaff, moderator)).statusCode).toBe(200);
    expect((await mark(byAuthor, user)).statusCode).toBe(200);
    for (const who of [undefined, user, other]) {
      const res = await get(`/api/community/posts/${postId}/comments`, who);
      expect(res.statusCode).toBe(200);
      expect(res.body, who?.id ?? 'anonymous').not.toContain(moderator.id);
      const items = res.json().items as { id: string; dna: boolean; dnaBy: string | null }[];
      expect(items.find((c) => c.id === byStaff)).toMatchObject({ dna: true, dnaBy: null });
      expect(items.find((c) => c.id === byAuthor)).toMatchObject({ dna: true, dnaBy: user.id });
    }
    // Which staff member verified a comment is staff-only too.
    const verified = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${postId}/comments/${byAuthor}/verify`,
      headers: moderator.headers,
    });
    expect(verified.statusCode).toBe(200);
    const publicView = (await get(`/api/community/posts/${postId}/comments`)).json().items as { id: string; verifiedBy: string | null }[];
    expect(publicView.find((c) => c.id === byAuthor)).toMatchObject({ isVerified: true, verifiedBy: null });
    // Staff see which moderator marked it.
    const staffView = (await get(`/api/community/posts/${postId}/comments`, admin)).json().items as { id: string; dnaBy: string | null }[];
    expect(staffView.find((c) => c.id === byStaff)?.dnaBy).toBe(moderator.id);
  });
});

describe('suggestions and trending publish only what several people searched', () => {
  const search = (query: string, opts: { from?: string; who?: Who } = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/search',
      payload: { query },
      remoteAddress: opts.from ?? '127.0.0.1',
      ...(opts.who ? { headers: opts.who.headers } : {}),
    });
  const suggested = async (q: string) =>
    ((await get(`/api/search/suggest?q=${encodeURIComponent(q)}`)).json() as { suggestions: { text: string }[] }).suggestions.map(
      (s) => s.text,
    );
  const trending = async () =>
    ((await get('/api/search/trending?days=1&limit=50')).json() as { items: { query: string }[] }).items.map((i) => i.query);

  it("one person's query never appears, however often they search it; three distinct searchers publish it", async () => {
    const secret = 'my ssn is 123-45-6789 help';
    for (let i = 0; i < 5; i++) await search(secret, { from: '10.1.0.1' });
    for (let i = 0; i < 3; i++) await search(secret, { who: user, from: `10.1.1.${i}` });
    await t.app.searchService.logs.flush();
    expect(await suggested('my')).not.toContain(secret);
    expect(await trending()).not.toContain(secret);

    const common = 'my badge does not work';
    await search(common, { from: '10.1.2.1' });
    await search(common, { who: other, from: '10.1.2.1' });
    await t.app.searchService.logs.flush();
    expect(await suggested('my')).not.toContain(common);
    await search(common, { from: '10.1.2.2' });
    await t.app.searchService.logs.flush();
    expect(await suggested('my')).toContain(common);
    expect(await trending()).toContain(common);
    expect(await suggested('my')).not.toContain(secret);
  });

  it('suggests FAQ questions whoever searched', async () => {
    await newFaq('My parking permit expired, what now?');
    expect(await suggested('my parking')).toEqual(['My parking permit expired, what now?']);
  });

  it('the public unresolved list follows the same rule; the admin list shows everything', async () => {
    const log = (query: string, from: string) =>
      t.app.inject({ method: 'POST', url: '/api/search/unresolved', payload: { query }, remoteAddress: from });
    const lone = 'call me at 555-0100 about my visa';
    for (let i = 0; i < 4; i++) expect((await log(lone, '10.2.0.1')).statusCode).toBe(201);
    const pub = await get('/api/search/unresolved');
    expect(pub.body).not.toContain('555-0100');
    const adminList = await get('/api/search/unresolved-list', admin);
    expect(adminList.body).toContain('555-0100');
  });

  it("logging an unresolved search answers nothing of another searcher's until the row is public", async () => {
    const log = (query: string, from: string, headers?: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/search/unresolved',
        payload: { query },
        remoteAddress: from,
        ...(headers ? { headers } : {}),
      });
    const victim = await log('My Passport Number is X1234567', '10.2.1.1');
    expect(victim.json()).toMatchObject({ query: 'My Passport Number is X1234567' });
    await log('My Passport Number is X1234567', '10.2.1.1');
    // Someone else guessing the text learns neither the first spelling nor that it was logged before:
    // the answer has the shape of one to a query nobody else logged.
    const guess = await log('my passport number is x1234567', '10.2.1.2');
    expect(guess.statusCode).toBe(201);
    const seen = guess.json() as Record<string, unknown>;
    expect(seen).toMatchObject({ id: (victim.json() as { id: string }).id, query: 'my passport number is x1234567', status: 'open' });
    for (const field of ['count', 'createdAt', 'lastSeenAt', 'resolvedBy', 'userId']) expect(seen).not.toHaveProperty(field);
    expect(guess.body).not.toContain('X1234567');
    const wrongGuess = (await log('my passport number is x7654321', '10.2.1.2')).json() as Record<string, unknown>;
    expect(Object.keys(wrongGuess).sort()).toEqual(Object.keys(seen).sort());
    // Everyone sees the row's figures once enough distinct searchers (3) made it public.
    expect((await log('MY PASSPORT NUMBER IS X1234567', '10.2.1.3')).json()).toMatchObject({
      query: 'My Passport Number is X1234567',
      count: 4,
    });
    // The figures then are what the public list shows.
    expect((await get('/api/search/unresolved')).body).toContain('My Passport Number is X1234567');
    // An admin sees them at once.
    await log('My Visa Number is V7654321', '10.2.1.1');
    expect((await log('my visa number is v7654321', '10.2.1.5', admin.headers)).json()).toMatchObject({
      query: 'My Visa Number is V7654321',
      count: 2,
    });
  });
});

describe('spec fields and routes', () => {
  it('reviewIntervalDays is a number for every tier (evergreen: 365)', async () => {
    const evergreen = await newFaq('Evergreen interval?');
    expect(evergreen.reviewIntervalDays).toBe(365);
    const seasonal = await newFaq('Seasonal interval?', { freshnessTier: 'seasonal' });
    expect(seasonal.reviewIntervalDays).toBe(t.ctx.config.FAQ_SEASONAL_DAYS);
    // A row written before (null in the database) reads as 365 too.
    await t.ctx.db.update(faqs).set({ reviewIntervalDays: null }).where(eq(faqs.id, evergreen.id));
    expect((await get(`/api/faq/${evergreen.id}`)).json().reviewIntervalDays).toBe(365);
    const list = (await get('/api/faq?limit=100')).json() as { items: { reviewIntervalDays: unknown }[] };
    for (const item of list.items) expect(typeof item.reviewIntervalDays).toBe('number');
  });

  it("a FAQ's history is readable by whoever may read the FAQ; a draft's only by staff", async () => {
    const faq = await newFaq('History question?');
    await t.app.inject({ method: 'PUT', url: `/api/faq/${faq.id}`, headers: admin.headers, payload: { answer: 'A new answer.' } });
    for (const who of [undefined, user]) {
      const res = await get(`/api/faq/${faq.id}/history`, who);
      expect(res.statusCode).toBe(200);
      expect(res.json().items).toHaveLength(1);
    }
    const draft = await newFaq('Draft history?', { reviewStatus: 'draft' });
    expectProblem(await get(`/api/faq/${draft.id}/history`), 404);
    expectProblem(await get(`/api/faq/${draft.id}/history`, user), 404);
    expect((await get(`/api/faq/${draft.id}/history`, moderator)).statusCode).toBe(200);
  });

  it('GET /batches/:id reads a program; archived ones only for admins who ask', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'By id program' } });
    const id = created.json().id as string;
    expect((await get(`/api/batches/${id}`)).json()).toMatchObject({ id, name: 'By id program', slug: 'by-id-program' });
    await t.app.inject({ method: 'POST', url: `/api/batches/${id}/archive`, headers: admin.headers });
    expectProblem(await get(`/api/batches/${id}`), 404, 'PROGRAM_NOT_FOUND');
    expectProblem(await get(`/api/batches/${id}?includeArchived=true`, user), 404);
    expect((await get(`/api/batches/${id}?includeArchived=true`, admin)).json()).toMatchObject({ id, archived: true });
    expectProblem(await get('/api/batches/not-a-uuid'), 400);
    expectProblem(await get('/api/batches/00000000-0000-4000-8000-000000000000'), 404);
  });
});
