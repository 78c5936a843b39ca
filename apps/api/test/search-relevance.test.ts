import { embedRow, keywordQuery, resolveProgramId, runHybridSearch } from '@cfaq/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

// The default install: the default embedder (EMBEDDER=auto: the sentence embedder), FAQs written over
// HTTP and embedded as the worker would, no word statistics collected yet (a new database).
// bench/relevance measures the same path on hundreds of queries; these pin a few of its kinds.
const FAQS: [string, string][] = [
  ['How do I reset my password?', 'Choose "Forgot password" on the sign-in page and follow the link we email you within ten minutes.'],
  ['Can I get a refund if I leave the program?', 'Tuition is repaid in full before the end of week one and half of it until week three.'],
  ['When does the next batch start?', 'New batches begin in January, May and September; applications close four weeks before.'],
  ['How do I turn on two-factor authentication?', 'Open Settings, then Security, and scan the code with an authenticator app.'],
  ['Where can I watch recordings of past sessions?', 'Every live session is recorded and posted under Library within a day.'],
  [
    'How do I change the email address on my account?',
    'Go to Settings, then Account, enter the new address and confirm the link we send to it.',
  ],
  ['What happens if I miss a project deadline?', 'Late work loses ten percent per day unless an extension was approved in advance.'],
  [
    'How do I contact a mentor outside of scheduled calls?',
    'Message your mentor in the Mentors channel; they answer within two working days.',
  ],
];

let t: TestApp;
const ids = new Map<string, string>();

beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDER: 'auto' } });
  const staff = await t.signIn('moderator');
  for (const [question, answer] of FAQS) {
    const res = await t.app.inject({ method: 'POST', url: '/api/faq', headers: staff.headers, payload: { question, answer } });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    ids.set(question, id);
    await embedRow(t.ctx, { table: 'faqs', id });
  }
});
afterAll(async () => {
  await t.close();
});

const top = async (query: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/search', payload: { query } });
  expect(res.statusCode).toBe(200);
  return (res.json() as { results: { id: string; title: string }[] }).results[0]?.title;
};

describe('POST /search ranks the FAQ a rephrasing asks for first', () => {
  it.each([
    ['forgot my pw, how do i get back in', 'How do I reset my password?'],
    ['can i get my money back after leaving', 'Can I get a refund if I leave the program?'],
    ['next intake start date', 'When does the next batch start?'],
    ['authenticator app setup', 'How do I turn on two-factor authentication?'],
    ['update the mail address on my profile', 'How do I change the email address on my account?'],
    ['submitted my project late, what now', 'What happens if I miss a project deadline?'],
    ['how do i reach my mentor between calls', 'How do I contact a mentor outside of scheduled calls?'],
  ])('%s', async (query, expected) => {
    expect(await top(query)).toBe(expected);
  });

  it('finds an answer through words only its answer holds', async () => {
    expect(await top('scan code with authenticator')).toBe('How do I turn on two-factor authentication?');
  });

  it('tolerates a misspelt word', async () => {
    expect(await top('recordngs of past sessions')).toBe('Where can I watch recordings of past sessions?');
  });

  it('matches a misspelt word by keyword through its spelling correction', async () => {
    expect(keywordQuery('refnud policy')).toBe('refnud policy refund');
    const programId = await resolveProgramId(t.ctx, undefined);
    const keyword = async (query: string) =>
      (await runHybridSearch(t.ctx.pool, { query, embedding: null, programId, sources: ['faq'], modes: ['text'] })).map((r) => r.title);
    expect((await keyword('refnud'))[0]).toBe('Can I get a refund if I leave the program?');
    expect((await keyword('authenticatr app'))[0]).toBe('How do I turn on two-factor authentication?');
  });
});
