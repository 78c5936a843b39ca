import { embedRow, normalizeQuery, resolveProgramId } from '@cfaq/core';
import { batches, communityPosts, faqs, searchLogs } from '@cfaq/db/schema/index';
import { CraftedEmbedder, unitVector } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

// Crafted geometry: queries and documents whose embedding text contains a marker get a chosen vector.
const MARKERS: [string, number[]][] = [
  ['zqvector', unitVector(10)],
  ['zq081', unitVector(20, 0.81)],
  ['zq079', unitVector(30, 0.79)],
  ['zqsem83', unitVector(40, 0.83)],
  ['zqdup83', unitVector(60, 0.83)],
  ['zqdup81', unitVector(70, 0.81)],
];
const AXES: [string, number[]][] = [
  ['axis20', unitVector(20)],
  ['axis30', unitVector(30)],
  ['axis40', unitVector(40)],
  ['axis60', unitVector(60)],
  ['axis70', unitVector(70)],
];
const embedder = new CraftedEmbedder((text) => {
  for (const [m, v] of [...MARKERS, ...AXES]) if (text.includes(m)) return v;
  return undefined;
});

let t: TestApp;
let programId: string;
let otherProgramId: string;

type Search = {
  results: {
    id: string;
    source: 'faq' | 'community';
    title: string;
    snippet: string;
    rrfScore: number;
    textScore: number;
    vectorScore: number;
    textRank: number | null;
    vectorRank: number | null;
  }[];
  degraded?: boolean;
};

async function addFaq(
  question: string,
  answer: string,
  opts: { batchId?: string; reviewStatus?: 'draft' | 'approved'; embed?: boolean } = {},
) {
  const [row] = await t.ctx.db
    .insert(faqs)
    .values({ batchId: opts.batchId ?? programId, question, answer, reviewStatus: opts.reviewStatus ?? 'approved' })
    .returning({ id: faqs.id });
  const id = (row as { id: string }).id;
  if (opts.embed !== false) await embedRow(t.ctx, { table: 'faqs', id });
  return id;
}

async function addPost(title: string, body: string, opts: { batchId?: string; deleted?: boolean } = {}) {
  const [row] = await t.ctx.db
    .insert(communityPosts)
    .values({ batchId: opts.batchId ?? programId, title, body, ...(opts.deleted ? { deletedAt: new Date() } : {}) })
    .returning({ id: communityPosts.id });
  const id = (row as { id: string }).id;
  await embedRow(t.ctx, { table: 'community_posts', id });
  return id;
}

const search = async (query: string, extra: Record<string, unknown> = {}, remoteAddress = '127.0.0.1') => {
  const res = await t.app.inject({ method: 'POST', url: '/api/search', payload: { query, ...extra }, remoteAddress });
  expect(res.statusCode).toBe(200);
  return res.json() as Search;
};

beforeAll(async () => {
  t = await createTestApp({ embedder, env: { SEARCH_LOG_FLUSH_MS: '600000' } });
  programId = await resolveProgramId(t.ctx, undefined);
  const [other] = await t.ctx.db.insert(batches).values({ name: 'Other', slug: 'other' }).returning({ id: batches.id });
  otherProgramId = (other as { id: string }).id;
});
afterAll(async () => {
  await t.close();
});

describe('POST /search', () => {
  it('returns at most 5 results, tagged by source, with scores and ranks', async () => {
    for (let i = 0; i < 7; i++) await addFaq(`How to configure gadgetron number ${i}`, `Open gadgetron settings, step ${i}.`);
    for (let i = 0; i < 4; i++) await addPost(`Gadgetron question ${i}`, 'My gadgetron does not start');
    const body = await search('  Gadgetron  ');
    expect(body.results).toHaveLength(5);
    expect(body.degraded).toBeUndefined();
    for (const r of body.results) {
      expect(['faq', 'community']).toContain(r.source);
      expect(r.textScore).toBeGreaterThan(0);
      expect(r.textRank).not.toBeNull();
      expect(r.title.toLowerCase()).toContain('gadgetron');
    }
    const scores = body.results.map((r) => r.rrfScore);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('adds the RRF scores of a document found by both lists (k = 60)', async () => {
    const id = await addFaq('Where is the zqvector lighthouse', 'Beyond the harbour wall.');
    const body = await search('zqvector lighthouse');
    const top = body.results[0];
    expect(top).toMatchObject({ id, source: 'faq', textRank: 1, vectorRank: 1 });
    expect(top?.vectorScore).toBeCloseTo(1, 5);
    expect(top?.rrfScore).toBeCloseTo(1 / 61 + 1 / 61, 10);
    // A document in one list only scores 1/(60 + rank) and 0 for the missing score.
    const single = body.results.find((r) => r.id !== id);
    if (single) {
      const fromText = single.textRank !== null ? 1 / (60 + single.textRank) : 0;
      const fromVector = single.vectorRank !== null ? 1 / (60 + single.vectorRank) : 0;
      expect(single.rrfScore).toBeCloseTo(fromText + fromVector, 10);
      if (single.textRank === null) expect(single.textScore).toBe(0);
      if (single.vectorRank === null) expect(single.vectorScore).toBe(0);
    }
  });

  it('keeps a vector-only match at 0.81 and drops one at 0.79 (fixed filter, thresholds ignored)', async () => {
    const near = await addFaq('Harbour opening hours axis20', 'Nine to five.');
    const far = await addFaq('Ferry timetable axis30', 'Every hour.');
    const kept = await search('zq081', { thresholds: { vector: 0.1, text: 0 } });
    expect(kept.results.map((r) => r.id)).toContain(near);
    expect(kept.results.find((r) => r.id === near)).toMatchObject({ textScore: 0, textRank: null, vectorRank: 1 });
    expect(kept.results.find((r) => r.id === near)?.vectorScore).toBeCloseTo(0.81, 5);
    const dropped = await search('zq079', { thresholds: { vector: 0 } });
    expect(dropped.results.map((r) => r.id)).not.toContain(far);
    expect(dropped.results).toEqual([]);
  });

  it('matches natural-language questions on any meaningful word (OR), ranking more and rarer words first', async () => {
    const both = await addFaq('Resetting a frobnicator password', 'Use the frobnicator reset page.');
    await addFaq('Password rules', 'At least twelve characters.');
    const body = await search('how can I reset my frobnicator password when I forgot it?');
    expect(body.results[0]?.id).toBe(both);
    expect(body.results.some((r) => r.title === 'Password rules')).toBe(true);
  });

  it('hides draft FAQs and deleted posts', async () => {
    await addFaq('Quokkaphone draft entry', 'secret', { reviewStatus: 'draft' });
    await addPost('Quokkaphone removed post', 'gone', { deleted: true });
    const visible = await addPost('Quokkaphone live post', 'still here');
    const body = await search('quokkaphone');
    expect(body.results.map((r) => r.id)).toEqual([visible]);
  });

  it('serves a repeated query from the cache and still logs it', async () => {
    const id = await addFaq('Cacheable zebracorn question', 'Zebracorn answer.');
    const first = await search('Cacheable Zebracorn');
    expect(first.results[0]?.id).toBe(id);
    // A write that changes no answer (a view count) keeps the entry.
    await t.ctx.db.update(faqs).set({ viewCount: 7 }).where(eq(faqs.id, id));
    const second = await search('  cacheable   ZEBRACORN ');
    expect(second).toEqual(first);
    await t.app.searchService.logs.flush();
    const logs = await t.ctx.db.select().from(searchLogs).where(eq(searchLogs.normalizedQuery, 'cacheable zebracorn'));
    expect(logs.map((l) => l.cacheHit).sort()).toEqual([false, true]);
    expect(logs.every((l) => l.resultCount === 1 && l.topResultId === id && l.batchId === programId)).toBe(true);
  });

  it('never serves a cached answer that is no longer visible (deleted, moved to draft)', async () => {
    const gone = await addFaq('Cache ghostfish deleted', 'Ghostfish answer.');
    const draft = await addFaq('Cache ghostfish drafted', 'Ghostfish answer.');
    const ids = async () => (await search('ghostfish')).results.map((r) => r.id).sort();
    expect(await ids()).toEqual([gone, draft].sort());
    await t.ctx.db.delete(faqs).where(eq(faqs.id, gone));
    expect(await ids()).toEqual([draft]);
    await t.ctx.db.update(faqs).set({ reviewStatus: 'draft' }).where(eq(faqs.id, draft));
    expect(await ids()).toEqual([]);
  });

  it('keeps programs apart, in results and in the cache', async () => {
    const mine = await addFaq('Isolated wombatron setup', 'Default program answer.');
    const theirs = await addFaq('Isolated wombatron setup', 'Other program answer.', { batchId: otherProgramId });
    const a = await search('isolated wombatron');
    expect(a.results.map((r) => r.id)).toEqual([mine]);
    const b = await search('isolated wombatron', { batchId: otherProgramId });
    expect(b.results.map((r) => r.id)).toEqual([theirs]);
  });

  it('answers text-only with degraded: true when the embedder fails', async () => {
    const id = await addFaq('Degraded narwhalizer guide', 'Works without vectors.');
    embedder.failing = true;
    try {
      const body = await search('narwhalizer guide');
      expect(body.degraded).toBe(true);
      expect(body.results[0]).toMatchObject({ id, vectorRank: null, vectorScore: 0, textRank: 1 });
    } finally {
      embedder.failing = false;
    }
    // Not cached: the next request gets the full ranking.
    const again = await search('narwhalizer guide');
    expect(again.degraded).toBeUndefined();
    expect(again.results[0]?.vectorRank).not.toBeNull();
  });

  it('finds a row without an embedding by text', async () => {
    const id = await addFaq('Unembedded platypod notes', 'Text only.', { embed: false });
    const body = await search('platypod');
    expect(body.results.map((r) => r.id)).toEqual([id]);
  });

  it('validates the body: 400 for empty, blank, too long or unknown fields; 404 for an unknown program', async () => {
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: '' } }), 400, 'VALIDATION_FAILED');
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: '   ' } }), 400, 'VALIDATION_FAILED');
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: 'x'.repeat(501) } }), 400);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: 'x', extra: 1 } }), 400);
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: 'x', batchId: '00000000-0000-4000-8000-000000000000' } }),
      404,
      'PROGRAM_NOT_FOUND',
    );
  });
});

describe('single-source and semantic searches', () => {
  it('GET /faq/search and /community/search search one source; GET /search both, by meaning and by words', async () => {
    const faq = await addFaq('Dingotron battery life', 'About a week.');
    const post = await addPost('Dingotron battery drains', 'Any tips?');
    const f = await t.app.inject({ method: 'GET', url: '/api/faq/search?q=dingotron' });
    expect(f.statusCode).toBe(200);
    expect((f.json() as Search).results.map((r) => r.id)).toEqual([faq]);
    const c = await t.app.inject({ method: 'GET', url: '/api/community/search?q=dingotron' });
    expect((c.json() as Search).results.map((r) => r.id)).toEqual([post]);
    const near = await addFaq('Semantic only axis40', 'x');
    const s = await t.app.inject({ method: 'GET', url: '/api/search?q=zqsem83' });
    expect(s.statusCode).toBe(200);
    const results = (s.json() as Search).results;
    expect(results.map((r) => r.id)).toEqual([near]);
    expect(results[0]?.textRank).toBeNull();
    // A FAQ sharing the query's word, just below 0.80 by meaning (0.79): found, with its real textScore.
    const worded = await addFaq('Wombatron charger axis30', 'In the drawer.');
    const words = await t.app.inject({ method: 'GET', url: '/api/search?q=wombatron+zq079' });
    const found = (words.json() as Search).results;
    expect(found.map((r) => r.id)).toEqual([worded]);
    expect(found[0]?.textScore).toBeGreaterThan(0);
    expect(found[0]?.vectorScore).toBeCloseTo(0.79, 2);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/faq/search?q=x&batchId=nope' }), 400);
  });
});

describe('duplicate check', () => {
  let target: string;
  beforeAll(async () => {
    target = await addFaq('Duplicate target axis60', 'x');
    await addFaq('Near miss axis70', 'x');
  });

  it.each(['/api/faq/check-match', '/api/faq/check-duplicate'])('%s matches at 0.83 and not at 0.81', async (url) => {
    const yes = await t.app.inject({ method: 'POST', url, payload: { query: 'is this zqdup83 already asked' } });
    expect(yes.statusCode).toBe(200);
    const body = yes.json() as { matched: boolean; faq?: { id: string; question: string }; vectorScore?: number };
    expect(body).toMatchObject({ matched: true, faq: { id: target, question: 'Duplicate target axis60' } });
    expect(body.vectorScore).toBeCloseTo(0.83, 5);
    const no = await t.app.inject({ method: 'POST', url, payload: { query: 'is this zqdup81 already asked' } });
    expect(no.statusCode).toBe(200);
    expect(no.json()).toEqual({ matched: false });
  });

  it('answers 503 when the embedder is down (no vector, no verdict)', async () => {
    embedder.failing = true;
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/faq/check-duplicate',
        payload: { query: 'is this zqdup83 already asked' },
      });
      expectProblem(res, 503, 'EMBEDDER_UNAVAILABLE');
    } finally {
      embedder.failing = false;
    }
  });

  it('needs at least 10 characters', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/faq/check-duplicate', payload: { query: '  short   ' } });
    expectProblem(res, 400, 'QUERY_TOO_SHORT');
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/faq/check-match', payload: {} }), 400, 'VALIDATION_FAILED');
    // Characters are counted as a person counts them: five emoji are five (ten UTF-16 units).
    const emoji = await t.app.inject({ method: 'POST', url: '/api/faq/check-match', payload: { query: '😀😀😀😀😀' } });
    expectProblem(emoji, 400, 'QUERY_TOO_SHORT');
    // Five accented letters typed with combining marks (ten code points) are five.
    const decomposed = await t.app.inject({ method: 'POST', url: '/api/faq/check-match', payload: { query: 'e\u0301'.repeat(5) } });
    expectProblem(decomposed, 400, 'QUERY_TOO_SHORT');
  });
});

describe('trending and suggestions', () => {
  it('GET /search/trending counts normalised queries of the program', async () => {
    // Three clients (SEARCH_SUGGEST_MIN_USERS); the other program's search does not count here.
    await search('Trending Koalabot', {}, '10.0.0.1');
    await search('trending koalabot ', {}, '10.0.0.2');
    await search('trending koalabot', {}, '10.0.0.3');
    await search('trending koalabot', { batchId: otherProgramId }, '10.0.0.4');
    await t.app.searchService.logs.flush();
    const res = await t.app.inject({ method: 'GET', url: '/api/search/trending?days=1' });
    expect(res.statusCode, res.body).toBe(200);
    const items = (res.json() as { items: { query: string; count: number }[] }).items;
    expect(items.find((i) => i.query === 'trending koalabot')?.count).toBe(3);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search/trending?days=0' }), 400);
    // A list like every other: {items, total, page, limit}, limit 20 by default and up to 100, pages from 1.
    const all = res.json() as { total: number; page: number; limit: number };
    expect(all).toMatchObject({ total: items.length, page: 1, limit: 20 });
    const pages = await Promise.all(
      Array.from({ length: all.total + 1 }, (_, i) =>
        t.app.inject({ method: 'GET', url: `/api/search/trending?days=1&limit=1&page=${i + 1}` }).then((r) => r.json()),
      ),
    );
    expect(pages.map((p) => p.items[0]?.query)).toEqual([...items.map((i) => i.query), undefined]);
    expect(pages.map((p) => p.total)).toEqual(pages.map(() => all.total));
    expect((await t.app.inject({ method: 'GET', url: '/api/search/trending?limit=100' })).statusCode).toBe(200);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search/trending?limit=101' }), 400);
  });

  it('logs the GET searches too: they count in trending like POST /search', async () => {
    const urls = ['/api/search?q=wallabyx+GET', '/api/faq/search?q=wallabyx+get', '/api/community/search?q=WallabyX+get'];
    for (const [i, url] of urls.entries()) {
      const res = await t.app.inject({ method: 'GET', url, remoteAddress: `10.0.3.${i + 1}` });
      expect(res.statusCode).toBe(200);
    }
    // A HEAD request is not a search anyone made.
    expect((await t.app.inject({ method: 'HEAD', url: '/api/search?q=wallabyx+get' })).statusCode).toBe(200);
    await t.app.searchService.logs.flush();
    const rows = await t.ctx.db.select().from(searchLogs).where(eq(searchLogs.normalizedQuery, 'wallabyx get'));
    expect(rows.map((r) => r.cacheHit)).toEqual([false, false, false]);
    const trending = (await t.app.inject({ method: 'GET', url: '/api/search/trending?days=1&limit=100' })).json() as {
      items: { query: string; count: number }[];
    };
    expect(trending.items.find((i) => i.query === 'wallabyx get')?.count).toBe(3);
  });

  it('counts repeated cache hits that share a search-log row in trending', async () => {
    for (let i = 0; i < 4; i++) await search('trending wombatron');
    await t.app.searchService.logs.flush();
    const rows = await t.ctx.db.select().from(searchLogs).where(eq(searchLogs.normalizedQuery, 'trending wombatron'));
    // One miss, then three hits of the same search in one flush interval: one row with count 3.
    expect(rows.map((r) => [r.cacheHit, r.count]).sort()).toEqual([
      [false, 1],
      [true, 3],
    ]);
    // One client is not enough to publish a query; two more make three distinct searchers.
    const trending = async () =>
      ((await t.app.inject({ method: 'GET', url: '/api/search/trending?days=1' })).json() as { items: { query: string; count: number }[] })
        .items;
    expect((await trending()).find((i) => i.query === 'trending wombatron')).toBeUndefined();
    await search('trending wombatron', {}, '10.0.1.1');
    await search('trending wombatron', {}, '10.0.1.2');
    await t.app.searchService.logs.flush();
    expect((await trending()).find((i) => i.query === 'trending wombatron')?.count).toBe(6);
  });

  it('GET /search/suggest suggests FAQ questions and popular queries by prefix', async () => {
    const id = await addFaq('How do I pair the emutron headset', 'Hold the button.');
    for (const from of ['10.0.2.1', '10.0.2.2', '10.0.2.3']) await search('emutron firmware', {}, from);
    await t.app.searchService.logs.flush();
    const res = await t.app.inject({ method: 'GET', url: '/api/search/suggest?q=Emut' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      suggestions: [
        { text: 'How do I pair the emutron headset', source: 'faq', faqId: id },
        { text: 'emutron firmware', source: 'query', faqId: null },
      ],
    });
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search/suggest' }), 400);
    // A blank prefix is no prefix (it listed every FAQ question).
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search/suggest?q=%20%20' }), 400);
  });

  it('limits suggestions to 30 requests per minute: the 31st answers 429', async () => {
    const limited = await createTestApp({ embedder });
    try {
      const inject = () => limited.app.inject({ method: 'GET', url: '/api/search/suggest?q=abc', remoteAddress: '10.9.8.7' });
      for (let i = 0; i < 30; i++) expect((await inject()).statusCode).toBe(200);
      const res = await inject();
      expectProblem(res, 429);
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});

describe('unresolved searches', () => {
  it('logs, counts repeats, lists, resolves with an FAQ, and guards admin routes', async () => {
    const log = (query: string, remoteAddress: string) =>
      t.app.inject({ method: 'POST', url: '/api/search/unresolved', payload: { query }, remoteAddress });
    const first = await log('Where is the Yakometer?', '10.0.3.1');
    expect(first.statusCode).toBe(201);
    const row = first.json() as {
      id: string;
      count: number;
      status: string;
      normalizedQuery: string;
      createdAt: string;
      lastSeenAt: string;
    };
    expect(row).toMatchObject({ status: 'open', normalizedQuery: 'where is the yakometer?' });
    // Not public yet: no figures for a caller who is not an admin.
    expect(row).not.toHaveProperty('count');
    const again = await log(' where is the YAKOMETER? ', '10.0.3.1');
    expect(again.json()).toMatchObject({ id: row.id });
    const adminRow = async () =>
      (
        (await t.app.inject({ method: 'GET', url: '/api/search/unresolved-list', headers: (await t.signIn('admin')).headers })).json() as {
          items: { id: string; count: number; createdAt: string; lastSeenAt: string }[];
        }
      ).items.find((i) => i.id === row.id);
    expect(await adminRow()).toMatchObject({ count: 2 });
    // The public list shows it once three distinct clients logged it.
    const publicIds = async () =>
      ((await t.app.inject({ method: 'GET', url: '/api/search/unresolved' })).json() as { items: { id: string }[] }).items.map((i) => i.id);
    expect(await publicIds()).not.toContain(row.id);
    await log('where is the yakometer?', '10.0.3.2');
    expect(await publicIds()).not.toContain(row.id);
    await log('where is the yakometer?', '10.0.3.3');

    const open = await t.app.inject({ method: 'GET', url: '/api/search/unresolved' });
    expect(open.statusCode).toBe(200);
    const list = open.json() as { items: Record<string, unknown>[]; total: number };
    expect(list.items.find((i) => i.id === row.id)).toMatchObject({ count: 4 });
    // A new row was first and last seen at the same moment (the database's clock once dated it later).
    const created = await log('where was the yakometer first seen?', '10.0.3.9');
    const createdRow = (
      (await t.app.inject({ method: 'GET', url: '/api/search/unresolved-list', headers: (await t.signIn('admin')).headers })).json() as {
        items: { id: string; createdAt: string; lastSeenAt: string }[];
      }
    ).items.find((i) => i.id === (created.json() as { id: string }).id);
    expect(createdRow?.createdAt).toBe(createdRow?.lastSeenAt);
    expect(list.items[0]).not.toHaveProperty('resolvedBy');

    const admin = await t.signIn('admin');
    const user = await t.signIn('user');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search/unresolved-list' }), 401);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search/unresolved-list', headers: user.headers }), 403);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search/unresolved-stats', headers: user.headers }), 403);
    const stats1 = await t.app.inject({ method: 'GET', url: '/api/search/unresolved-stats', headers: admin.headers });
    expect(stats1.json()).toMatchObject({ open: 2, resolved: 0, openSearches: 5 });

    const faqId = await addFaq('Where is the Yakometer', 'In the shed.');
    const resolveUrl = `/api/search/unresolved/${row.id}/resolve`;
    expectProblem(await t.app.inject({ method: 'POST', url: resolveUrl, payload: { faqId } }), 401);
    expectProblem(await t.app.inject({ method: 'POST', url: resolveUrl, headers: user.headers, payload: { faqId } }), 403);
    expectProblem(await t.app.inject({ method: 'POST', url: resolveUrl, headers: admin.headers, payload: { faqId: 'x' } }), 400);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: resolveUrl,
        headers: admin.headers,
        payload: { faqId: '00000000-0000-4000-8000-000000000000' },
      }),
      404,
      'FAQ_NOT_FOUND',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/api/search/unresolved/00000000-0000-4000-8000-000000000000/resolve',
        headers: admin.headers,
        payload: { faqId },
      }),
      404,
      'UNRESOLVED_SEARCH_NOT_FOUND',
    );
    // The FAQ must be one the search's own program shows: not another program's, not a draft.
    const elsewhere = await addFaq('Where is the Yakometer kept', 'Elsewhere.', { batchId: otherProgramId, embed: false });
    const draft = await addFaq('Where is the Yakometer now', 'Unsure.', { reviewStatus: 'draft', embed: false });
    expectProblem(
      await t.app.inject({ method: 'POST', url: resolveUrl, headers: admin.headers, payload: { faqId: elsewhere } }),
      422,
      'FAQ_OTHER_PROGRAM',
    );
    expectProblem(
      await t.app.inject({ method: 'POST', url: resolveUrl, headers: admin.headers, payload: { faqId: draft } }),
      422,
      'FAQ_NOT_PUBLISHED',
    );
    const resolved = await t.app.inject({ method: 'POST', url: resolveUrl, headers: admin.headers, payload: { faqId } });
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json()).toMatchObject({ id: row.id, status: 'resolved', resolvedFaqId: faqId, resolvedBy: admin.id });
    expectProblem(
      await t.app.inject({ method: 'POST', url: resolveUrl, headers: admin.headers, payload: { faqId } }),
      422,
      'ALREADY_RESOLVED',
    );

    const openAfter = (await t.app.inject({ method: 'GET', url: '/api/search/unresolved' })).json() as { items: { id: string }[] };
    expect(openAfter.items.map((i) => i.id)).not.toContain(row.id);
    const all = await t.app.inject({ method: 'GET', url: '/api/search/unresolved-list?status=resolved', headers: admin.headers });
    expect((all.json() as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([row.id]);
    const stats2 = await t.app.inject({ method: 'GET', url: '/api/search/unresolved-stats', headers: admin.headers });
    expect(stats2.json()).toMatchObject({ open: 1, resolved: 1, resolvedLast7Days: 1 });

    // A new open row starts once the old one is resolved.
    const fresh = await t.app.inject({ method: 'POST', url: '/api/search/unresolved', payload: { query: 'where is the yakometer?' } });
    expect(fresh.json()).toMatchObject({ status: 'open' });
    expect((fresh.json() as { id: string }).id).not.toBe(row.id);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/search/unresolved', payload: {} }), 400);
  });

  it('resolves without a faqId (empty body or none at all)', async () => {
    const admin = await t.signIn('admin');
    for (const payload of [{}, undefined]) {
      const logged = await t.app.inject({
        method: 'POST',
        url: '/api/search/unresolved',
        payload: { query: `no faq needed ${String(payload)}` },
      });
      const id = (logged.json() as { id: string }).id;
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/search/unresolved/${id}/resolve`,
        headers: admin.headers,
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id, status: 'resolved', resolvedFaqId: null, resolvedBy: admin.id });
    }
  });
});

describe('GET searches and thresholds', () => {
  it('accept and ignore a thresholds parameter, like POST /search', async () => {
    for (const qs of ['thresholds=0.5', 'thresholds=%7B%22vector%22%3A0.9%7D', 'thresholds[vector]=0.9&thresholds[text]=0.1']) {
      for (const path of ['/api/search', '/api/faq/search', '/api/community/search']) {
        const res = await t.app.inject({ method: 'GET', url: `${path}?q=gadgetron&${qs}` });
        expect(res.statusCode, `${path}?${qs}`).toBe(200);
      }
    }
    const plain = await t.app.inject({ method: 'GET', url: '/api/search?q=gadgetron' });
    const withThresholds = await t.app.inject({ method: 'GET', url: '/api/search?q=gadgetron&thresholds=0.99' });
    expect(withThresholds.json()).toEqual(plain.json());
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/search?q=gadgetron&other=1' }), 400);
  });
});

describe('search log', () => {
  it('is flushed when the app closes (SIGTERM path)', async () => {
    const app = await buildApp({ ctx: t.ctx, logger: false });
    await app.ready();
    const q = `shutdown flush ${Date.now()}`;
    const res = await app.inject({ method: 'POST', url: '/api/search', payload: { query: q } });
    expect(res.statusCode).toBe(200);
    expect(app.searchService.logs.size).toBe(1);
    await app.close();
    const rows = await t.ctx.db
      .select()
      .from(searchLogs)
      .where(eq(searchLogs.normalizedQuery, normalizeQuery(q)));
    expect(rows).toHaveLength(1);
  });
});
