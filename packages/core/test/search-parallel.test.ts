import {
  embedText,
  HYBRID_SEARCH_SOURCES,
  hybridStatement,
  keywordQuery,
  refreshLexemeStats,
  resolveProgramId,
  runHybridSearch,
  runHybridStatement,
  toVectorLiteral,
} from '@cfaq/core';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestContext;
let programId: string;

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(' ');
const text = (i: number, n: number) => Array.from({ length: n }, (_, k) => WORDS[(i * 5 + k * 3) % WORDS.length]).join(' ');

beforeAll(async () => {
  t = await createTestContext();
  programId = await resolveProgramId(t.ctx, undefined);
  // The same texts in every table (i % 40 repeats them within one too): rows of different sources and
  // rows of one source tie on every score, so the merge's tie-breaks (source, then id) are exercised.
  const rows = Array.from({ length: 120 }, (_, i) => ({ title: `${text(i % 40, 4)} item${i % 40}`, body: text(i + 1, 12) }));
  const cols = [rows.map((r) => r.title), rows.map((r) => r.body), rows.map((r) => toVectorLiteral(embedText(`${r.title}\n${r.body}`)))];
  await t.ctx.pool.query(
    `INSERT INTO faqs (batch_id, question, answer, embedding) SELECT $1, q, a, e::vector FROM unnest($2::text[], $3::text[], $4::text[]) u(q, a, e)`,
    [programId, ...cols],
  );
  await t.ctx.pool.query(
    `INSERT INTO community_posts (batch_id, title, body, embedding) SELECT $1, q, a, e::vector FROM unnest($2::text[], $3::text[], $4::text[]) u(q, a, e)`,
    [programId, ...cols],
  );
  for (const table of ['transcript_knowledge', 'document_insights']) {
    await t.ctx.pool.query(
      `INSERT INTO ${table} (batch_id, title, content, status, embedding)
       SELECT $1, q, a, 'approved', e::vector FROM unnest($2::text[], $3::text[], $4::text[]) u(q, a, e)`,
      [programId, ...cols.map((c) => c.slice(0, 60))],
    );
  }
  await t.ctx.pool.query('ANALYZE faqs; ANALYZE community_posts; ANALYZE transcript_knowledge; ANALYZE document_insights');
  await refreshLexemeStats(t.ctx);
});
afterAll(async () => {
  await t.close();
});

describe('hybrid search across sources on PostgreSQL', () => {
  it('runs one statement per source side by side and returns what the one statement over all of them returns', async () => {
    const pool = t.ctx.pool;
    const queries = ['alpha delta golf', 'item7 alpha', 'kilo item12 mike item30', 'how do i use bravo charlie', 'papa', 'item3'];
    for (const limit of [5, 12]) {
      for (const q of queries) {
        const values = { query: q, embedding: embedText(q), programId };
        // The first search on a pool runs the one statement (the pool's kind is not known yet).
        await runHybridSearch(pool, { ...values, sources: HYBRID_SEARCH_SOURCES, limit });
        let acquired = 0;
        const count = () => acquired++;
        pool.on('acquire', count);
        const split = await runHybridSearch(pool, { ...values, sources: HYBRID_SEARCH_SOURCES, limit });
        pool.off('acquire', count);
        // One connection per source: the four statements ran side by side.
        expect(acquired, q).toBe(HYBRID_SEARCH_SOURCES.length);
        const one = await runHybridStatement(pool, hybridStatement({ sources: HYBRID_SEARCH_SOURCES, modes: ['vector', 'text'], limit }), {
          ...values,
          query: keywordQuery(q),
        });
        expect(split.length, q).toBeGreaterThan(0);
        expect(split, q).toEqual(one);
      }
    }
  });

  it('keeps the one statement for a single source', async () => {
    const pool = t.ctx.pool;
    const q = 'alpha delta';
    await runHybridSearch(pool, { query: q, embedding: embedText(q), programId, sources: HYBRID_SEARCH_SOURCES });
    let acquired = 0;
    const count = () => acquired++;
    pool.on('acquire', count);
    const rows = await runHybridSearch(pool, { query: q, embedding: embedText(q), programId, sources: ['faq'] });
    pool.off('acquire', count);
    expect(acquired).toBe(1);
    expect(rows.every((r) => r.source === 'faq')).toBe(true);
  });
});
