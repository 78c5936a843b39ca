import { hasVisibleText, nominatePosts, reviewAiAnswer, suggestFaq, VISIBLE_TEXT_REGEX } from '@cfaq/core';
import { communityPosts, faqs, pipelineResults } from '@cfaq/db/schema/index';
import { axisEmbedder, createKnowledge, defaultProgramId, type FakeAiServer, quickAiEnv, startFakeOpenAI, unitVector } from '@cfaq/testkit';
import { Value } from '@sinclair/typebox/value';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../packages/core/src/runtime/clock.js';
import { ReviewBody } from '../src/routes/ai-admin/schemas.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * Text people read needs a visible character: zero-width characters (U+200B-U+200F, U+2060, BOM) are
 * blank like white space, on every path that writes or publishes such text (schemas and core's checks,
 * for rows already stored too). And a NUL in an AI provider's reply is dropped where the reply is
 * read: PostgreSQL's text and jsonb refuse it, and the client's request was fine.
 */

const NOW = new Date('2026-06-01T12:00:00Z');
const DAY = 86_400_000;
const ZW = '\u200b\u200b\u200b';
const embedder = axisEmbedder();
type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let fake: FakeAiServer;
let program: string;
let admin: Who;
let user: Who;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestApp({
    clock: fixedClock(NOW),
    embedder,
    env: { ...GENEROUS_LIMITS, ...quickAiEnv(fake) },
  });
  program = await defaultProgramId(t.ctx);
  admin = await t.signIn('admin');
  user = await t.signIn('user');
});
afterAll(async () => {
  await fake.close();
  await t.close();
});

const inject = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, who?: Who, payload?: unknown) =>
  t.app.inject({ method, url, ...(who ? { headers: who.headers } : {}), ...(payload !== undefined ? { payload: payload as object } : {}) });
/** The problem's error paths. */
const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path);

async function draft(values: Partial<typeof faqs.$inferInsert>) {
  const [row] = await t.ctx.db
    .insert(faqs)
    .values({ batchId: program, question: 'Where is the lost and found?', answer: '', reviewStatus: 'draft', ...values })
    .returning();
  return row as typeof faqs.$inferSelect;
}

/** A post of `user`'s in the program, a day old unless `values` say otherwise; its id. */
async function insertPost(values: Partial<typeof communityPosts.$inferInsert>) {
  const [row] = await t.ctx.db
    .insert(communityPosts)
    .values({
      batchId: program,
      authorId: user.id,
      title: 'A question?',
      body: 'Details.',
      createdAt: new Date(NOW.getTime() - DAY),
      ...values,
    })
    .returning({ id: communityPosts.id });
  return row?.id as string;
}

describe('POST /faq/suggest: an answer, when given, has a visible character', () => {
  it.each([
    ['zero-width spaces', ZW],
    ['spaces', '   '],
    ['a BOM and a word joiner', '\ufeff\u2060 '],
  ])('%s: 400 naming body.answer, nothing stored', async (_, answer) => {
    const question = `Is there a parking FAQ (${answer.length} ${answer.codePointAt(0)})?`;
    const res = await inject('POST', '/api/faq/suggest', user, { question, answer });
    expect(paths(expectProblem(res, 400))).toContain('body.answer');
    expect(await t.ctx.db.select().from(faqs).where(eq(faqs.question, question))).toHaveLength(0);
  });

  it('no answer, or a visible one, is a suggestion (201); only the one with an answer waits for promotion', async () => {
    const none = await inject('POST', '/api/faq/suggest', user, { question: 'Could we get a bike FAQ?' });
    expect(none.statusCode).toBe(201);
    expect(none.json()).toMatchObject({ answer: '', reviewStatus: 'draft' });
    const given = await inject('POST', '/api/faq/suggest', user, { question: 'Could we get a gym FAQ?', answer: '\u200bOpen at 7.' });
    expect(given.statusCode).toBe(201);
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, given.json().id));
    expect(row?.promotionStatus).toBe('community_pending');
  });
});

describe('core: a suggestion waits for promotion only with a visible answer', () => {
  it('suggestFaq with a zero-width answer (a caller without the schema) keeps it out of promotion', async () => {
    const f = await suggestFaq(t.ctx, { id: user.id, role: 'user' }, { question: 'Could we get a canteen FAQ?', answer: ZW });
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, f.id));
    expect(row?.promotionStatus).not.toBe('community_pending');
    expect(row?.promotionEligibleAt).toBeNull();
  });
});

describe('core refuses to publish an answer without a visible character (rows already stored)', () => {
  it('PUT /faq/:id publishing a draft with a zero-width answer: 422 FAQ_NO_ANSWER', async () => {
    const f = await draft({ answer: ZW });
    expectProblem(await inject('PUT', `/api/faq/${f.id}`, admin, { reviewStatus: 'approved' }), 422, 'FAQ_NO_ANSWER');
    // The same edit giving it a visible answer publishes it.
    const ok = await inject('PUT', `/api/faq/${f.id}`, admin, { reviewStatus: 'approved', answer: 'At the front desk.' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ reviewStatus: 'approved', answer: 'At the front desk.' });
  });

  it('POST /admin/faqs/:id/promote of a suggestion stored with a zero-width answer: 422 FAQ_NO_ANSWER, still a draft', async () => {
    const f = await draft({
      answer: ` ${ZW}\ufeff `,
      source: 'suggestion',
      promotionStatus: 'community_pending',
      promotionEligibleAt: new Date(NOW.getTime() - DAY),
    });
    expectProblem(await inject('POST', `/api/admin/faqs/${f.id}/promote`, admin), 422, 'FAQ_NO_ANSWER');
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, f.id));
    expect(row).toMatchObject({ reviewStatus: 'draft', promotionStatus: 'community_pending' });
  });
});

describe('PATCH /admin/auto-answer/:postId', () => {
  async function suggested(aiAnswer: string) {
    return insertPost({
      title: 'How do I book a room?',
      aiAnswer,
      aiAnswerStatus: 'suggested',
      aiAnswerSource: 'ai_generated',
      aiAnswerConfidence: 0.7,
    });
  }
  const reload = async (id: string) => (await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, id)))[0];

  it('a zero-width manualAnswer is 400 naming body.manualAnswer; nothing is published', async () => {
    const id = await suggested('Use the booking page.');
    const res = await inject('PATCH', `/api/admin/auto-answer/${id}`, admin, { action: 'approve', manualAnswer: ZW });
    expect(paths(expectProblem(res, 400))).toContain('body.manualAnswer');
    expect(await reload(id)).toMatchObject({ aiAnswerStatus: 'suggested', aiAnswer: 'Use the booking page.', status: 'open' });
  });

  it('the route schema refuses a zero-width manualAnswer, and so does core (a caller without the schema)', async () => {
    expect(Value.Check(ReviewBody, { action: 'approve', manualAnswer: ZW })).toBe(false);
    expect(Value.Check(ReviewBody, { action: 'approve', manualAnswer: '\u200bFine.' })).toBe(true);
    const id = await suggested('Use the booking page.');
    await expect(reviewAiAnswer(t.ctx, { id: admin.id, role: 'admin' }, id, { action: 'approve', manualAnswer: ZW })).rejects.toMatchObject(
      {
        status: 400,
      },
    );
    expect((await reload(id))?.aiAnswerStatus).toBe('suggested');
  });

  it('approving a stored AI text of zero-width characters: 422 NO_ANSWER_TEXT', async () => {
    const id = await suggested(ZW);
    expectProblem(await inject('PATCH', `/api/admin/auto-answer/${id}`, admin, { action: 'approve' }), 422, 'NO_ANSWER_TEXT');
    expect((await reload(id))?.aiAnswerStatus).toBe('suggested');
  });
});

describe('search and knowledge text: zero-width only is blank', () => {
  it('GET /search/suggest, GET /search and POST /search: 400 like a blank query', async () => {
    expect(paths(expectProblem(await inject('GET', '/api/search/suggest?q=%E2%80%8B%E2%80%8B'), 400))).toContain('query.q');
    expect(paths(expectProblem(await inject('GET', '/api/search/suggest?q=%20%20'), 400))).toContain('query.q');
    expect(paths(expectProblem(await inject('GET', '/api/search?q=%E2%80%8B%EF%BB%BF'), 400))).toContain('query.q');
    expect(paths(expectProblem(await inject('POST', '/api/search', undefined, { query: ZW }), 400))).toContain('body.query');
  });

  it('a query with a visible character around zero-width ones is searched (no 500)', async () => {
    expect((await inject('POST', '/api/search', undefined, { query: '\u200b a' })).statusCode).toBe(200);
    expect((await inject('GET', '/api/search/suggest?q=%E2%80%8Ba')).statusCode).toBe(200);
  });

  it('POST /knowledge/ingest with a zero-width title: 400 naming body.title', async () => {
    const res = await inject('POST', '/api/knowledge/ingest', admin, { title: ZW, content: 'The library opens at 9 am.' });
    expect(paths(expectProblem(res, 400))).toContain('body.title');
  });
});

describe('a NUL in the AI provider reply is dropped, not a 400', () => {
  it('POST /admin/community/auto-answer?postId=: the answer is stored without the NUL', async () => {
    fake.reply = () => ({ answer: 'Use the\u0000 booking page.', answerable: true, ok: true });
    const id = await insertPost({ title: 'Where do I book a desk?' });
    const res = await inject('POST', `/api/admin/community/auto-answer?postId=${id}`, admin);
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toMatchObject([{ postId: id, outcome: 'written' }]);
    const [post] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, id));
    expect(post?.aiAnswer).toBe('Use the booking page.');
  });

  it('POST /admin/audit/faqs?faq_id=: the reason is stored without the NUL', async () => {
    const [f] = await t.ctx.db
      .insert(faqs)
      .values({
        batchId: program,
        question: 'When does the library open [axis7]?',
        answer: 'At 9 am on weekdays.',
        createdAt: new Date(NOW.getTime() - 10 * DAY),
        lastVerifiedDate: new Date(NOW.getTime() - 10 * DAY),
      })
      .returning();
    await createKnowledge(t.ctx, { content: 'The library opens at 10 am on weekdays.', embedding: unitVector(7, 0.95) });
    fake.reply = () => ({ score: 0.7, confidence: 0.9, reason: 'Hours\u0000 drifted.', citedSourceIds: [], evidence: [] });
    const res = await inject('POST', `/api/admin/audit/faqs?faq_id=${f?.id}`, admin);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ dryRun: false, checked: 1 });
    const [pr] = await t.ctx.db
      .select()
      .from(pipelineResults)
      .where(eq(pipelineResults.targetId, f?.id as string));
    expect(JSON.stringify(pr)).toContain('Hours drifted.');
    expect(JSON.stringify(pr)).not.toContain('\\u0000');
  });
});

describe('more places where zero-width text is blank', () => {
  it('an AI answer of zero-width characters is not an answer: the post is escalated, nothing published', async () => {
    fake.reply = () => ({ answer: ZW, answerable: true });
    const id = await insertPost({ title: 'Can I park overnight?' });
    expect((await inject('POST', `/api/admin/community/auto-answer?postId=${id}`, admin)).statusCode).toBe(200);
    const [post] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, id));
    expect(post?.aiAnswerStatus).toBe('escalated');
    expect(post?.status).toBe('open');
  });

  it('the promotion cycle nominates no post whose only answer is zero-width characters', async () => {
    const id = await insertPost({
      title: 'Is the invisible answer promoted?',
      status: 'answered',
      upvotes: 50,
      aiAnswer: ZW,
      aiAnswerStatus: 'approved',
      createdAt: new Date(NOW.getTime() - 10 * DAY),
    });
    await nominatePosts(t.ctx);
    const drafts = await t.ctx.db.select().from(faqs).where(eq(faqs.sourceId, id));
    expect(drafts).toEqual([]);
  });

  it('staff reasons and notes: zero-width only is 400 naming the field', async () => {
    const suspend = await inject('POST', '/api/moderation/suspend', admin, { userId: user.id, reason: ZW });
    expect(paths(expectProblem(suspend, 400, 'VALIDATION_FAILED'))).toEqual(['body.reason']);
    const points = await inject('POST', '/api/reputation/points', admin, { userId: user.id, points: 5, reason: ZW });
    expect(paths(expectProblem(points, 400, 'VALIDATION_FAILED'))).toContain('body.reason');
    const ingest = await inject('POST', '/api/knowledge/ingest', admin, { title: 'Visible title', content: ZW });
    expect(paths(expectProblem(ingest, 400, 'VALIDATION_FAILED'))).toEqual(['body.content']);
    // An escalated post's resolve note, when sent: a blank one (zero-width, or empty) is refused like a report's note.
    const escalated = await insertPost({
      title: 'Who can help?',
      escalationStatus: 'escalated',
      escalatedAt: new Date(NOW.getTime() - DAY),
    });
    for (const note of [ZW, '', ' \u2060 ']) {
      const resolve = await inject('POST', `/api/admin/community/escalated-posts/${escalated}/resolve`, admin, { note });
      expect(new Set(paths(expectProblem(resolve, 400, 'VALIDATION_FAILED')))).toEqual(new Set(['body.note']));
    }
    const resolved = await inject('POST', `/api/admin/community/escalated-posts/${escalated}/resolve`, admin, {
      note: `${ZW}Called them.`,
    });
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json().escalationNote).toBe(`${ZW}Called them.`);
  });
});

describe('every character that shows nothing alone is blank, not only zero-width spaces', () => {
  // soft hyphen, invisible operators, Hangul filler, variation selector, an isolate, a bidi override
  const INVISIBLE = ['\u00ad', '\u2061\u2062', '\u3164', '\ufe0f', '\u2066\u2069', '\u202e'];

  it('a post whose title and body are only such characters is 400 naming both', async () => {
    for (const ch of INVISIBLE) {
      const res = await inject('POST', '/api/community/posts', user, { title: ch.repeat(6), body: ch.repeat(3) });
      expect(new Set(paths(expectProblem(res, 400, 'VALIDATION_FAILED')))).toEqual(new Set(['body.title', 'body.body']));
    }
  });

  it('an AI answer of a soft hyphen and invisible operators is escalated, not published', async () => {
    fake.reply = () => ({ answer: '\u00ad\u2061\u2062', answerable: true });
    const id = await insertPost({ title: 'May I bring a guest?' });
    expect((await inject('POST', `/api/admin/community/auto-answer?postId=${id}`, admin)).statusCode).toBe(200);
    const [post] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, id));
    expect(post).toMatchObject({ aiAnswerStatus: 'escalated', status: 'open' });
  });

  it("PostgreSQL's reading of the rule (the promotion cycle's SQL) agrees with hasVisibleText", async () => {
    for (const text of [...INVISIBLE, ' \u200b\ufeff ', '\u00adx', 'e\u0301', '\u{1F44D}\ufe0f', 'plain']) {
      const { rows } = await t.ctx.pool.query<{ visible: boolean }>('select $1::text ~ $2 as visible', [text, VISIBLE_TEXT_REGEX]);
      expect([text, rows[0]?.visible]).toEqual([text, hasVisibleText(text)]);
    }
  });
});
