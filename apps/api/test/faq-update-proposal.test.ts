import { embedRow, FAQ_UPDATE_THRESHOLD, proposeFaqUpdates } from '@cfaq/core';
import { faqs } from '@cfaq/db/schema/index';
import { defaultProgramId, type FakeAiServer, startFakeOpenAI } from '@cfaq/testkit';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * "Update FAQ X" instead of a new FAQ: an insight or knowledge item that matches an existing FAQ of
 * its program closely (cosine >= FAQ_UPDATE_THRESHOLD) names that FAQ (proposedFaqId, proposedFaqScore),
 * and convert-to-faq / promote update it by default; faqId null creates anyway, faqId picks one.
 */
let ai: FakeAiServer;
let t: TestApp;
let admin: Awaited<ReturnType<TestApp['signIn']>>;
let laptopFaq: string;

const LAPTOP_Q = 'Can I borrow a laptop for the whole term?';
const LAPTOP_A = 'Yes, the lending desk lends laptops for the whole term; bring your student card.';

interface Insight {
  id: string;
  question: string;
  answer: string;
  proposedFaqId: string | null;
  proposedFaqScore: number | null;
}
interface Item {
  id: string;
  status: string;
  proposedFaqId: string | null;
  proposedFaqScore: number | null;
  promotedFaqId: string | null;
}

const faqCount = async () => (await t.ctx.db.select({ n: count() }).from(faqs))[0]?.n ?? 0;
const createFaq = async (question: string, answer: string, batchId?: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/faq',
    headers: admin.headers,
    payload: { question, answer, ...(batchId ? { batchId } : {}) },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = (res.json() as { id: string }).id;
  // The embed-row job's work (the test app's job queue only records jobs).
  await embedRow(t.ctx, { table: 'faqs', id });
  return id;
};

beforeAll(async () => {
  ai = await startFakeOpenAI();
  t = await createTestApp({
    env: {
      ...GENEROUS_LIMITS,
      OPENAI_API_KEY: ai.apiKey,
      OPENAI_BASE_URL: ai.baseUrl,
      AI_RETRY_BASE_MS: '1',
      AI_MAX_RETRIES: '0',
      AI_TIMEOUT_MS: '5000',
    },
  });
  admin = await t.signIn('admin');
  laptopFaq = await createFaq(LAPTOP_Q, LAPTOP_A);
  await createFaq('Where is the cafeteria?', 'The cafeteria is on the ground floor of building A.');
  // A test database clone, an app and two embedded FAQs: minutes on a loaded machine.
}, 180_000);
afterAll(async () => {
  await t?.close();
  await ai?.close();
});

describe('insights: "update FAQ X"', () => {
  let insights: Insight[];

  it('an insight matching an existing FAQ proposes it, with its score; an unrelated one proposes nothing', async () => {
    ai.reply = () => ({
      insights: [
        { question: LAPTOP_Q, answer: `${LAPTOP_A.slice(0, -1)} and a deposit of 20 euros.`, segment: 0 },
        { question: 'Where is the rooftop garden?', answer: 'On the roof of building C, open from May.', segment: 1 },
        { question: LAPTOP_Q, answer: LAPTOP_A, segment: 0 },
      ],
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      headers: admin.headers,
      payload: {
        source: 'manual_raw',
        topic: 'Lending desk',
        rawText: `Alice: ${LAPTOP_A} And a deposit of 20 euros.\nBob: The rooftop garden is on building C, open from May.`,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { meetingId } = res.json() as { meetingId: string };
    const list = await t.app.inject({ method: 'GET', url: `/api/conf/insights?meetingId=${meetingId}`, headers: admin.headers });
    insights = (list.json() as { items: Insight[] }).items;
    expect(insights).toHaveLength(3);
    const laptop = insights.filter((i) => i.question === LAPTOP_Q);
    for (const i of laptop) {
      expect(i.proposedFaqId).toBe(laptopFaq);
      expect(i.proposedFaqScore).toBeGreaterThanOrEqual(FAQ_UPDATE_THRESHOLD);
    }
    expect(insights.find((i) => i.question.includes('rooftop'))).toMatchObject({ proposedFaqId: null, proposedFaqScore: null });
  });

  it('convert-to-faq updates the proposed FAQ (200, action updated), creates for an unrelated one (201), and creates on faqId null', async () => {
    for (const i of insights) {
      const ok = await t.app.inject({
        method: 'PUT',
        url: `/api/conf/insights/${i.id}`,
        headers: admin.headers,
        payload: { status: 'approved' },
      });
      expect(ok.statusCode, ok.body).toBe(200);
    }
    const withDeposit = insights.find((i) => i.answer.includes('deposit'));
    const exact = insights.find((i) => i.answer === LAPTOP_A);
    const garden = insights.find((i) => i.question.includes('rooftop')) as Insight;
    const before = await faqCount();

    const updated = await t.app.inject({
      method: 'POST',
      url: `/api/conf/insights/${withDeposit?.id}/convert-to-faq`,
      headers: admin.headers,
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const u = updated.json() as {
      action: string;
      faq: { id: string; question: string; answer: string };
      insight: { convertedFaqId: string };
    };
    expect(u.action).toBe('updated');
    expect(u.faq.id).toBe(laptopFaq);
    expect(u.faq.question).toBe(LAPTOP_Q);
    expect(u.faq.answer).toContain('deposit of 20 euros');
    expect(u.insight.convertedFaqId).toBe(laptopFaq);
    expect(await faqCount()).toBe(before);
    // An ordinary staff edit: a revision records the answer change.
    const history = await t.app.inject({ method: 'GET', url: `/api/faq/${laptopFaq}/history`, headers: admin.headers });
    expect(JSON.stringify(history.json())).toContain('deposit of 20 euros');

    const created = await t.app.inject({ method: 'POST', url: `/api/conf/insights/${garden.id}/convert-to-faq`, headers: admin.headers });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ action: 'created', faq: { question: 'Where is the rooftop garden?' } });
    expect(await faqCount()).toBe(before + 1);

    const forced = await t.app.inject({
      method: 'POST',
      url: `/api/conf/insights/${exact?.id}/convert-to-faq`,
      headers: admin.headers,
      payload: { faqId: null, question: 'Can I keep a library laptop over the holidays?' },
    });
    expect(forced.statusCode, forced.body).toBe(201);
    const f = forced.json() as { action: string; faq: { id: string } };
    expect(f.action).toBe('created');
    expect(f.faq.id).not.toBe(laptopFaq);
    expect(await faqCount()).toBe(before + 2);
  });
});

describe('knowledge items: "update FAQ X"', () => {
  const ingest = async (title: string, content: string, batchId?: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/knowledge/ingest',
      headers: admin.headers,
      payload: { title, content, ...(batchId ? { batchId } : {}) },
    });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { items: Item[] }).items[0] as Item;
  };

  it('an ingested item matching a FAQ proposes it; promote updates that FAQ and links it', async () => {
    const cafeteria = (await t.app.inject({ method: 'GET', url: '/api/faq?limit=100', headers: admin.headers })).json() as {
      items: { id: string; question: string }[];
    };
    const cafeteriaFaq = cafeteria.items.find((f) => f.question === 'Where is the cafeteria?')?.id as string;
    const item = await ingest('Where is the cafeteria?', 'The cafeteria is on the ground floor of building A, next to the library.');
    expect(item.proposedFaqId).toBe(cafeteriaFaq);
    expect(item.proposedFaqScore).toBeGreaterThanOrEqual(FAQ_UPDATE_THRESHOLD);
    const listed = (await t.app.inject({ method: 'GET', url: '/api/knowledge?type=document', headers: admin.headers })).json() as {
      items: Item[];
    };
    expect(listed.items.find((i) => i.id === item.id)).toMatchObject({ proposedFaqId: cafeteriaFaq });
    const before = await faqCount();
    const pro = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${item.id}/promote`, headers: admin.headers });
    expect(pro.statusCode, pro.body).toBe(200);
    expect(pro.json()).toMatchObject({
      action: 'updated',
      faq: { id: cafeteriaFaq, question: 'Where is the cafeteria?', answer: expect.stringContaining('next to the library') },
      item: { status: 'promoted', promotedFaqId: cafeteriaFaq },
    });
    expect(await faqCount()).toBe(before);
  });

  it('an unrelated item proposes nothing and promote creates; faqId picks a FAQ, but never another program’s', async () => {
    const item = await ingest('Bicycle repair station', 'A bicycle repair station with pumps and tools stands by the north gate.');
    expect(item).toMatchObject({ proposedFaqId: null, proposedFaqScore: null });
    const other = (
      await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Proposal B' } })
    ).json() as {
      id: string;
    };
    const foreign = await createFaq('Where can I repair my bicycle?', 'At the north gate.', other.id);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/knowledge/${item.id}/promote`, headers: admin.headers, payload: { faqId: foreign } }),
      422,
      'FAQ_OTHER_PROGRAM',
    );
    expectProblem(
      await t.app.inject({
        method: 'PUT',
        url: `/api/knowledge/${item.id}/promote`,
        headers: admin.headers,
        payload: { faqId: '00000000-0000-4000-8000-000000000000' },
      }),
      404,
      'FAQ_NOT_FOUND',
    );
    // Nothing was written by the refused attempts.
    const [row] = await t.ctx.db.select({ answer: faqs.answer }).from(faqs).where(eq(faqs.id, foreign));
    expect(row?.answer).toBe('At the north gate.');
    const before = await faqCount();
    const pro = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${item.id}/promote`, headers: admin.headers });
    expect(pro.statusCode, pro.body).toBe(200);
    expect(pro.json()).toMatchObject({ action: 'created', faq: { question: 'Bicycle repair station' }, item: { status: 'promoted' } });
    expect(await faqCount()).toBe(before + 1);
    expectProblem(
      await t.app.inject({ method: 'PUT', url: `/api/knowledge/${item.id}/promote`, headers: admin.headers, payload: { faqId: 'nope' } }),
      400,
    );
  });
});

describe('a FAQ not embedded yet, asked word for word', () => {
  it('is proposed over a close embedded neighbour that asks something else', async () => {
    const program = await defaultProgramId(t.ctx);
    const question = 'Can I borrow a laptop for the whole term too?';
    // The embedded neighbour alone is proposed for this question...
    expect(await proposeFaqUpdates(t.ctx, program, [question])).toEqual([expect.objectContaining({ faqId: laptopFaq })]);
    // ...until a FAQ asks it word for word, even one whose embed-row job has not run.
    const res = await t.app.inject({ method: 'POST', url: '/api/faq', headers: admin.headers, payload: { question, answer: LAPTOP_A } });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    expect(await proposeFaqUpdates(t.ctx, program, [question.toUpperCase()])).toEqual([{ faqId: id, score: 1 }]);
    await t.ctx.db.delete(faqs).where(eq(faqs.id, id));
  });
});
