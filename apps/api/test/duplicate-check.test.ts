import { embedRow } from '@cfaq/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

// The real default embedder (EMBEDDER=auto: the sentence embedder; no crafted vectors): what a user
// of the default install gets.
let t: TestApp;
let faqId: string;
const RESET_ANSWER =
  'Open the sign-in page, choose "Forgot password" and follow the link we email you. The link expires after one hour; ' +
  'if it does, request another one. Contact support if no email arrives within ten minutes.';

beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDER: 'auto' } });
  const staff = await t.signIn('moderator');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/faq',
    headers: staff.headers,
    payload: {
      question: 'How do I reset my password?',
      answer: RESET_ANSWER,
    },
  });
  expect(res.statusCode).toBe(201);
  faqId = res.json().id;
  // The write sent its embedding job; run it as the worker would.
  expect(t.jobs).toBeDefined();
  await embedRow(t.ctx, { table: 'faqs', id: faqId });
});
afterAll(async () => {
  await t.close();
});

const check = async (query: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/faq/check-duplicate', payload: { query } });
  expect(res.statusCode).toBe(200);
  return res.json() as { matched: boolean; faq?: { id: string; question: string }; vectorScore?: number };
};

describe('duplicate check with the default embedder', () => {
  it('matches a question asked again word for word, however long the FAQ answer is', async () => {
    const r = await check('How do I reset my password?');
    expect(r).toMatchObject({ matched: true, faq: { id: faqId, question: 'How do I reset my password?' } });
    expect(r.vectorScore).toBeGreaterThanOrEqual(0.82);
  });

  it('matches the same question in other function words and case', async () => {
    expect((await check('how can I RESET my passwords')).matched).toBe(true);
  });

  it('matches on the vectorScore the search reports for the same FAQ (the spec rule), not a re-scored one', async () => {
    const query = 'How do I reset my password?';
    const r = await check(query);
    const search = await t.app.inject({ method: 'POST', url: '/api/search', payload: { query } });
    expect(search.statusCode).toBe(200);
    const hit = (search.json().results as { id: string; vectorScore: number }[]).find((x) => x.id === faqId);
    expect(hit?.vectorScore).toBeCloseTo(r.vectorScore as number, 9);
  });

  it('does not match another question of the same topic, the lone FAQ of its program', async () => {
    // 0.797 at the embedder's calibration 0.59; it was 0.822, a block, at the 0.64 measured and not kept.
    expect(await check('How do I delete my account?')).toEqual({ matched: false });
  });

  it('does not match a different question', async () => {
    expect(await check('When does the spring program start?')).toEqual({ matched: false });
  });
});

describe('"update FAQ X" proposals follow the duplicate check, by the row\'s question', () => {
  const ingest = async (title: string, content: string) => {
    const admin = await t.signIn('admin');
    const res = await t.app.inject({ method: 'POST', url: '/api/knowledge/ingest', headers: admin.headers, payload: { title, content } });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { items: { proposedFaqId: string | null; proposedFaqScore: number | null }[] }).items[0];
  };

  it("a document asking the FAQ's question in other words proposes it", async () => {
    const item = await ingest(
      'how can I reset my passwords',
      'Use the Forgot password link on the sign-in page; the emailed link lasts one hour.',
    );
    expect(item).toMatchObject({ proposedFaqId: faqId });
  });

  it('a document of the same topic asking another question proposes nothing (its whole text is as close as a rephrasing)', async () => {
    const item = await ingest(
      'How do I delete my account?',
      'Open the sign-in page, sign in, and choose Settings, then Delete account. We email you a link to confirm; it expires after one hour.',
    );
    expect(item).toMatchObject({ proposedFaqId: null, proposedFaqScore: null });
  });
});

describe('duplicate check when an FAQ asks the same question twice', () => {
  it('still matches: FAQs asking the same question do not compete with each other (a repost scores a tie)', async () => {
    const staff = await t.signIn('moderator');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/faq',
      headers: staff.headers,
      payload: { question: 'How do I reset my password?', answer: RESET_ANSWER },
    });
    expect(res.statusCode).toBe(201);
    await embedRow(t.ctx, { table: 'faqs', id: res.json().id });
    const r = await check('how can I RESET my passwords');
    expect(r.matched).toBe(true);
    expect([faqId, res.json().id]).toContain(r.faq?.id);
  });
});

describe('duplicate check between two close FAQs', () => {
  it('matches the nearer from 0.88 up, however close the other scores (the spec rule: >= 0.82 matches)', async () => {
    const admin = await t.signIn('admin');
    const program = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Portal help' } });
    const batchId = program.json().id as string;
    const ids: string[] = [];
    for (const [question, answer] of [
      ['How do I reset my password for the portal?', 'Use "Forgot password" on the portal sign-in page; we email you a link.'],
      ['How do I change my password for the portal?', 'Sign in to the portal, open Settings, then Security, and choose a new password.'],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/faq', headers: admin.headers, payload: { question, answer, batchId } });
      ids.push(res.json().id);
      await embedRow(t.ctx, { table: 'faqs', id: res.json().id });
    }
    const query = 'How do I reset or change my password for the portal?';
    const scores = (await t.app.inject({ method: 'GET', url: `/api/faq/search?q=${encodeURIComponent(query)}&batchId=${batchId}` })).json()
      .results as { vectorScore: number }[];
    // A near tie above 0.88: the margin alone would have let this repeat through.
    expect(scores[0]?.vectorScore).toBeGreaterThanOrEqual(0.88);
    expect((scores[0]?.vectorScore ?? 0) - (scores[1]?.vectorScore ?? 0)).toBeLessThan(0.02);
    const res = await t.app.inject({ method: 'POST', url: '/api/faq/check-match', payload: { query, batchId } });
    expect(res.json()).toMatchObject({ matched: true });
    expect(ids).toContain(res.json().faq.id);
  });
});

describe('blank search text', () => {
  it('is a 400 naming the field, in the body or in the query string', async () => {
    const post = await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: '   ' } });
    expect(post.statusCode).toBe(400);
    expect(post.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.query' })]));
    const get = await t.app.inject({ method: 'GET', url: '/api/faq/search?q=%20%20' });
    expect(get.statusCode).toBe(400);
    expect(get.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'query.q' })]));
    const short = await t.app.inject({ method: 'POST', url: '/api/faq/check-match', payload: { query: 'short' } });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors).toEqual([expect.objectContaining({ path: 'body.query' })]);
  });
});

describe('duplicate check right after a FAQ is created (before the worker embeds it)', () => {
  /** A program of its own, and a FAQ created in it through the API (its embed-row job not run). */
  const newProgram = async (name: string) => {
    const admin = await t.signIn('admin');
    const program = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name } });
    const batchId = program.json().id as string;
    const createFaq = async (question: string, answer: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/faq', headers: admin.headers, payload: { question, answer, batchId } });
      expect(res.statusCode).toBe(201);
      return res.json().id as string;
    };
    const checkIn = async (query: string) =>
      (await t.app.inject({ method: 'POST', url: '/api/faq/check-duplicate', payload: { query, batchId } })).json();
    return { batchId, createFaq, checkIn };
  };

  it('matches its question asked word for word, with the score the search reports once it is embedded', async () => {
    const { batchId, createFaq, checkIn } = await newProgram('Handbook help');
    const question = 'Where can I download the onboarding handbook?';
    const id = await createFaq(question, 'In the Documents section of the portal, under Getting started.');
    // No embed-row job has run: the FAQ has no vector yet.
    const before = await checkIn('where can I download the ONBOARDING handbook');
    expect(before).toMatchObject({ matched: true, faq: { id, question } });
    // A rephrasing is the threshold's to judge, which needs the vector.
    expect(await checkIn('How do I get the handbook for new people?')).toEqual({ matched: false });
    await embedRow(t.ctx, { table: 'faqs', id });
    expect(await checkIn(question)).toMatchObject({ matched: true, faq: { id } });
    const search = await t.app.inject({
      method: 'POST',
      url: '/api/search',
      payload: { query: 'where can I download the ONBOARDING handbook', batchId },
    });
    const hit = (search.json().results as { id: string; vectorScore: number }[]).find((x) => x.id === id);
    expect(hit?.vectorScore).toBeCloseTo(before.vectorScore, 5);
  });

  it('names that FAQ, not a close embedded neighbour that asks something else', async () => {
    const { createFaq, checkIn } = await newProgram('App help');
    const answer = 'Open Settings, then Account, then Reset password.';
    const neighbour = await createFaq('How can I reset my conference app password?', answer);
    await embedRow(t.ctx, { table: 'faqs', id: neighbour });
    const question = 'How can I reset my conference app password quickly?';
    // The embedded neighbour alone is a match for this question (the rule's threshold)...
    expect(await checkIn(question)).toMatchObject({ matched: true, faq: { id: neighbour } });
    // ...but once a FAQ asks it word for word, that FAQ is named, before its job and after.
    const id = await createFaq(question, answer);
    const before = await checkIn(question);
    expect(before).toMatchObject({ matched: true, faq: { id, question } });
    await embedRow(t.ctx, { table: 'faqs', id });
    const after = await checkIn(question);
    expect(after).toMatchObject({ matched: true, faq: { id } });
    expect(after.vectorScore).toBeCloseTo(before.vectorScore, 5);
  });
});
