import { embeddingText, embedOne, HYBRID_SEARCH_SOURCES, runHybridSearch } from '@cfaq/core';
import { createKnowledge, defaultProgramId } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * POST /search over the knowledge base: approved TranscriptKnowledge and DocumentInsight rows of the
 * program are two more sources of the one fused statement (source transcript_knowledge /
 * document_insight); pending, rejected and promoted rows and other programs' rows never appear, and a
 * knowledge write empties the result cache.
 */
let t: TestApp;
let admin: Awaited<ReturnType<TestApp['signIn']>>;
let program: string;

interface Result {
  id: string;
  source: string;
  title: string;
  snippet: string;
  textScore: number;
  vectorScore: number;
}
const search = async (query: string, batchId?: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/search', payload: batchId ? { query, batchId } : { query } });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { results: Result[] }).results;
};
const ingest = async (title: string, content: string, batchId?: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/knowledge/ingest',
    headers: admin.headers,
    payload: { title, content, ...(batchId ? { batchId } : {}) },
  });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { items: { id: string }[] }).items[0]?.id as string;
};
/** A knowledge row in a given state, embedded as the app embeds (what ingestion would have stored). */
const knowledgeRow = async (
  kind: 'transcript_knowledge' | 'document_insight',
  title: string,
  content: string,
  status: 'pending_review' | 'approved' | 'rejected' | 'promoted',
  batchId?: string,
) => {
  const embedding = await embedOne(
    t.ctx.embedder,
    embeddingText(kind === 'transcript_knowledge' ? 'transcript_knowledge' : 'document_insights', title, content),
  );
  return (await createKnowledge(t.ctx, { kind, title, content, status, embedding, ...(batchId ? { batchId } : {}) })).id;
};

beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
  admin = await t.signIn('admin');
  program = await defaultProgramId(t.ctx);
  for (const [question, answer] of [
    ['How do I reset my password?', 'Use the forgot-password link on the sign-in page.'],
    ['When is the capstone due?', 'The capstone is due on the last Friday of the term.'],
    ['Where is the library?', 'The library is in building B, second floor.'],
  ]) {
    const res = await t.app.inject({ method: 'POST', url: '/api/faq', headers: admin.headers, payload: { question, answer } });
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
});

describe('POST /search over the knowledge base', () => {
  it('finds an approved document insight and transcript knowledge, each with its own source tag', async () => {
    const doc = await ingest('Bicycle storage', 'Bicycles are stored in the locked cage behind the gymnasium; ask security for the key.');
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/conf/upload-transcript',
      headers: admin.headers,
      payload: {
        source: 'manual_raw',
        topic: 'Kiln orientation',
        rawText: 'Alice: The pottery kiln is fired every Thursday evening; glazed pieces go on the lower shelf.',
      },
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const bikes = await search('where can i store my bicycle');
    expect(bikes[0]).toMatchObject({ id: doc, source: 'document_insight', title: 'Bicycle storage' });
    expect(bikes[0]?.snippet).toMatch(/^Bicycles are stored/);
    expect(bikes[0]?.textScore).toBeGreaterThan(0);
    const kiln = await search('when is the pottery kiln fired');
    expect(kiln[0]).toMatchObject({ source: 'transcript_knowledge' });
    expect(kiln[0]?.snippet).toContain('kiln is fired every Thursday');
    // FAQs are still found beside them.
    expect((await search('reset my password'))[0]).toMatchObject({ source: 'faq', title: 'How do I reset my password?' });
  });

  it('never shows pending, rejected or promoted rows; a review decision reaches a cached answer at once', async () => {
    const pending = await knowledgeRow('transcript_knowledge', 'Xylophone lessons', 'Xylophone lessons start in spring.', 'pending_review');
    const rejected = await knowledgeRow(
      'document_insight',
      'Xylophone repair',
      'Xylophone repairs are done by the music office.',
      'rejected',
    );
    const promoted = await knowledgeRow('document_insight', 'Xylophone loans', 'Xylophones are lent for a week.', 'promoted');
    const shown = async () => (await search('xylophone')).map((r) => r.id);
    // Cached now (a miss, then served from the cache while the generation holds).
    expect(await shown()).toEqual([]);
    expect(await shown()).toEqual([]);
    // Approving moves the search cache generation: the next search is not served the cached empty answer.
    const approve = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${pending}/approve`, headers: admin.headers });
    expect(approve.statusCode, approve.body).toBe(200);
    expect(await shown()).toEqual([pending]);
    const reject = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${pending}/reject`, headers: admin.headers });
    expect(reject.statusCode, reject.body).toBe(200);
    expect(await shown()).toEqual([]);
    for (const id of [rejected, promoted]) expect(await shown()).not.toContain(id);
    // Promoting an approved row: the FAQ it became takes its place, the row itself leaves the search.
    const again = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${pending}/approve`, headers: admin.headers });
    expect(again.statusCode, again.body).toBe(200);
    expect(await shown()).toEqual([pending]);
    const pro = await t.app.inject({
      method: 'PUT',
      url: `/api/knowledge/${pending}/promote`,
      headers: admin.headers,
      payload: { question: 'When do xylophone lessons start?' },
    });
    expect(pro.statusCode, pro.body).toBe(200);
    const after = await search('xylophone');
    expect(after.map((r) => [r.source, r.title])).toEqual([['faq', 'When do xylophone lessons start?']]);
  });

  it('is program-scoped: another program’s knowledge is found only in that program', async () => {
    const other = (
      await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Knowledge B' } })
    ).json() as { id: string };
    const id = await ingest('Zeppelin hangar', 'The zeppelin hangar opens at dawn for the airship club.', other.id);
    expect((await search('zeppelin hangar')).map((r) => r.id)).not.toContain(id);
    expect((await search('zeppelin hangar', other.id)).map((r) => r.id)).toEqual([id]);
    // The default program's own FAQs are not in program B.
    expect((await search('reset my password', other.id)).map((r) => r.source)).not.toContain('faq');
  });

  it('a program without knowledge rows gets exactly the spec’s FAQ/post ranking', async () => {
    const only = (
      await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'No knowledge' } })
    ).json() as {
      id: string;
    };
    const words = ['reset', 'password', 'capstone', 'library', 'term', 'floor', 'sign', 'friday'];
    for (let i = 0; i < 24; i++) {
      const w = (k: number) => words[(i * 3 + k) % words.length];
      const post = { title: `About ${w(0)} and ${w(1)}?`, body: `Question on ${w(2)} ${i}.`, batchId: only.id };
      const faq = { question: `How does ${w(0)} ${w(1)} work?`, answer: `It uses the ${w(2)} ${i}.`, batchId: only.id };
      const res = await t.app.inject({
        method: 'POST',
        url: i % 2 ? '/api/community/posts' : '/api/faq',
        headers: admin.headers,
        payload: i % 2 ? post : faq,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const queries = ['reset password', 'capstone term', 'library floor sign', 'how does friday work', 'password', 'nothing here at all'];
    for (const query of queries) {
      const embedding = await embedOne(t.ctx.embedder, query);
      const spec = await runHybridSearch(t.ctx.pool, { query, embedding, programId: only.id, sources: ['faq', 'community'] });
      const all = await runHybridSearch(t.ctx.pool, { query, embedding, programId: only.id, sources: HYBRID_SEARCH_SOURCES });
      expect(all, query).toEqual(spec);
      expect(
        (await search(query, only.id)).map((r) => r.id),
        query,
      ).toEqual(spec.map((r) => r.id));
    }
    // And the knowledge tables of the default program are not empty, so the comparison means something there too.
    expect((await search('bicycle storage', program)).map((r) => r.source)).toContain('document_insight');
  });
});
