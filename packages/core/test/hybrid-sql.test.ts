import {
  BM25_B,
  BM25_K1,
  BODY_WEIGHT,
  buildHybridSql,
  DEFAULT_TEXT_TUNING,
  embedText,
  HYBRID_SEARCH_SOURCES,
  prepareSearchConnection,
  refreshLexemeStats,
  resolveProgramId,
  SOURCE_TABLES,
  TEXT_LIST_MIN_SCORE,
  toVectorLiteral,
} from '@cfaq/core';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestContext;
let programId: string;

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(' ');
const text = (i: number, n: number) => Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');

beforeAll(async () => {
  t = await createTestContext();
  programId = await resolveProgramId(t.ctx, undefined);
  const n = 400;
  const rows = Array.from({ length: n }, (_, i) => ({ title: `${text(i, 5)} item${i}`, body: text(i + 1, 20) }));
  const vec = (r: { title: string; body: string }) => toVectorLiteral(embedText(`${r.title}\n${r.body}`));
  await t.ctx.pool.query(
    `INSERT INTO faqs (batch_id, question, answer, embedding) SELECT $1, q, a, e::vector FROM unnest($2::text[], $3::text[], $4::text[]) u(q, a, e)`,
    [programId, rows.map((r) => r.title), rows.map((r) => r.body), rows.map(vec)],
  );
  await t.ctx.pool.query(
    `INSERT INTO community_posts (batch_id, title, body, embedding) SELECT $1, q, a, e::vector FROM unnest($2::text[], $3::text[], $4::text[]) u(q, a, e)`,
    [programId, rows.map((r) => r.title), rows.map((r) => r.body), rows.map(vec)],
  );
  await t.ctx.pool.query('ANALYZE faqs; ANALYZE community_posts');
  await refreshLexemeStats(t.ctx);
});
afterAll(async () => {
  await t.close();
});

describe('hybrid search statement', () => {
  it('uses the HNSW and GIN indexes of both tables, no sequential scan of them', async () => {
    const client = await t.ctx.pool.connect();
    try {
      await prepareSearchConnection(client);
      await client.query('BEGIN');
      // At 400 rows "read the program's rows by its btree and sort" is cheapest; at 100k rows
      // (bench/search) the planner picks HNSW and GIN by itself. Inside a rolled-back transaction,
      // the program btrees are dropped and sequential scans priced out, which shows the statement's
      // shape lets every sub-search use its HNSW or GIN index.
      // The analytics btrees (migration 0020) lead with created_at or batch_id: priced as a full index
      // scan they would stand in for the sequential scan here, so they go too.
      await client.query(
        'DROP INDEX faqs_batch_status_idx, community_posts_batch_idx, faqs_created_idx, community_posts_analytics_idx, community_posts_analytics_batch_idx; SET LOCAL enable_seqscan = off',
      );
      const q = 'how do I use alpha with item7';
      const res = await client.query(`EXPLAIN ${buildHybridSql()}`, [q, toVectorLiteral(embedText(q)), programId]);
      await client.query('ROLLBACK');
      const plan = res.rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      for (const index of [
        'faqs_embedding_hnsw_idx',
        'community_posts_embedding_hnsw_idx',
        'faqs_search_vector_idx',
        'community_posts_search_vector_idx',
        'faqs_title_tsv_idx',
        'community_posts_title_tsv_idx',
      ]) {
        expect(plan).toContain(index);
      }
      expect(plan).not.toMatch(/Seq Scan on (faqs|community_posts)/);
    } finally {
      client.release();
    }
  });

  it('searches the knowledge tables through their own HNSW, GIN and title indexes too (POST /search)', async () => {
    const client = await t.ctx.pool.connect();
    try {
      await prepareSearchConnection(client);
      await client.query('BEGIN');
      // As on large tables, where a program's rows are too many to filter one by one: the knowledge
      // tables get rows of their own, and the indexes on program and status go.
      await client.query(
        'DROP INDEX transcript_knowledge_batch_idx, transcript_knowledge_status_idx, document_insights_batch_idx, document_insights_status_idx; SET LOCAL enable_seqscan = off',
      );
      for (const table of ['transcript_knowledge', 'document_insights']) {
        await client.query(
          `INSERT INTO ${table} (batch_id, title, content, status, embedding)
           SELECT $1, 'row ' || i, 'text of row ' || i, 'approved', (SELECT embedding FROM faqs WHERE embedding IS NOT NULL LIMIT 1)
           FROM generate_series(1, 500) i`,
          [programId],
        );
        await client.query(`ANALYZE ${table}`);
      }
      const q = 'how do I use alpha with item7';
      const sql = buildHybridSql({ sources: HYBRID_SEARCH_SOURCES });
      const res = await client.query(`EXPLAIN ${sql}`, [q, toVectorLiteral(embedText(q)), programId]);
      await client.query('ROLLBACK');
      const plan = res.rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      for (const table of ['transcript_knowledge', 'document_insights']) {
        for (const index of ['embedding_hnsw_idx', 'search_vector_idx', 'title_tsv_idx', 'search_length_idx', 'unembedded_idx'])
          expect(plan).toContain(`${table}_${index}`);
      }
      expect(plan).not.toMatch(/Seq Scan on (transcript_knowledge|document_insights)/);
    } finally {
      client.release();
    }
  });

  it('is one statement whose text side ORs the query lexemes with the english configuration', () => {
    const sql = buildHybridSql();
    expect(sql.trim().startsWith('WITH')).toBe(true);
    expect(sql).not.toContain(';');
    expect(sql).toContain("websearch_to_tsquery('english', $1)");
    expect(sql).toContain("' | '");
    expect(sql.match(/ORDER BY embedding <=> \$2::vector LIMIT 5/g)).toHaveLength(2);
  });

  it('ranks documents with more and rarer query words first, with deterministic ties', async () => {
    const client = await t.ctx.pool.connect();
    try {
      await prepareSearchConnection(client);
      const sql = buildHybridSql({ sources: ['faq'], modes: ['text'] });
      const run = async () => (await client.query(sql, ['item7 alpha', null, programId])).rows;
      const a = await run();
      expect(a[0]?.title).toContain('item7');
      expect(a[0]?.textScore).toBeGreaterThan(a[1]?.textScore ?? 0);
      expect(await run()).toEqual(a);
    } finally {
      client.release();
    }
  });

  it('picks keyword candidates by title hits and still ranks as scoring every matching row would', async () => {
    const client = await t.ctx.pool.connect();
    try {
      // Every WORDS word sits in about a third of the titles (common); itemN in one row (rare).
      // alpha, delta and golf share titles; alpha and bravo never do.
      const queries = ['alpha delta golf', 'alpha delta', 'golf', 'item7 alpha', 'kilo item12 mike item30', 'alpha bravo charlie'];
      for (const source of ['faq', 'community'] as const) {
        // exactRows 0: the statistics' path (at 400 rows every query would otherwise be counted exactly).
        const opts = { sources: [source], modes: ['text'], filter: false } as const;
        const bounded = buildHybridSql(opts, { ...DEFAULT_TEXT_TUNING, exactRows: 0 });
        const unbounded = buildHybridSql(opts, { ...DEFAULT_TEXT_TUNING, bounded: false, exactRows: 0 });
        for (const q of queries) {
          const a = (await client.query(bounded, [q, null, programId])).rows as { id: string; textScore: number }[];
          const b = (await client.query(unbounded, [q, null, programId])).rows as { id: string; textScore: number }[];
          expect(a.length, `${source}: ${q}`).toBe(5);
          // The same scores in the same order; rows tied with the fifth may be other rows of that
          // score (the last tier reads at most FALLBACK_ROWS of them), all others are the same rows.
          for (const [i, r] of a.entries()) expect(r.textScore, `${source}: ${q}`).toBeCloseTo(b[i]?.textScore ?? -1, 9);
          const fifth = b[4]?.textScore ?? 0;
          const above = (rows: typeof a) => rows.filter((r) => r.textScore > fifth + 1e-9).map((r) => r.id);
          expect(above(a), `${source}: ${q}`).toEqual(above(b));
        }
      }
    } finally {
      client.release();
    }
  });

  it("past the cap, reads the first tier's rare-word pairs before its title hits, not the rows a scan returns first", async () => {
    const fresh = await createTestContext();
    try {
      const program = await resolveProgramId(fresh.ctx, undefined);
      const tag = Date.now().toString(36);
      const [r1, r2] = [`quokka${tag}`, `wombat${tag}`];
      // Stored first, so a scan returns them first: 8 titles holding one rare word, 8 texts holding
      // both rare words in their body; then 1,000 rows without either; the row asked about last. The
      // two words sit in under 2 % of the rows (rare), and 17 rows match the first tier.
      const questions = [
        ...Array.from({ length: 8 }, (_, i) => `${r1} page ${i}`),
        ...Array.from({ length: 8 }, (_, i) => `Setup page ${i}`),
        ...Array.from({ length: 1000 }, (_, i) => `Filler question ${i}`),
        `${r1} ${r2} setup`,
      ];
      const last = questions.length - 1;
      const answers = questions.map((_, i) =>
        i >= 8 && i < 16 ? `See ${r1} and ${r2} notes.` : i === last ? `${r1} ${r2}` : 'Other notes.',
      );
      const { rows } = await fresh.ctx.pool.query<{ id: string }>(
        `INSERT INTO faqs (batch_id, question, answer)
         SELECT $1, q, a FROM unnest($2::text[], $3::text[]) WITH ORDINALITY u(q, a, n) ORDER BY n RETURNING id`,
        [program, questions, answers],
      );
      await fresh.ctx.pool.query('ANALYZE faqs');
      await refreshLexemeStats(fresh.ctx);
      const opts = { sources: ['faq'], modes: ['text'], filter: false } as const;
      // exactRows 0: the statistics' path, where the tiers and the cap apply; a cap of 10 rows.
      const capped = buildHybridSql(opts, { ...DEFAULT_TEXT_TUNING, exactRows: 0, candidateCap: 10 });
      const uncapped = buildHybridSql(opts, { ...DEFAULT_TEXT_TUNING, exactRows: 0, candidateCap: 1000 });
      const ids = async (sql: string) =>
        (await fresh.ctx.pool.query<{ id: string }>(sql, [`${r1} ${r2} setup`, null, program])).rows.map((r) => r.id);
      const best = rows[last]?.id;
      expect((await ids(uncapped))[0]).toBe(best);
      expect(await ids(capped)).toEqual(await ids(uncapped));
    } finally {
      await fresh.close();
    }
  });

  it('weighs words by the statistics the refresh job copies: the listed words and an estimate for unlisted ones', async () => {
    expect(await refreshLexemeStats(t.ctx)).toBeGreaterThan(2);
    const { rows } = await t.ctx.pool.query<{ table_name: string; lexeme: string; frac: number }>(
      "SELECT table_name, lexeme, frac FROM search_lexeme_stats WHERE lexeme IN ('alpha', '') ORDER BY table_name, lexeme",
    );
    // alpha sits in about half the rows; '' is the estimate for a word too rare to be listed.
    expect(rows.map((r) => [r.table_name, r.lexeme])).toEqual([
      ['community_posts', ''],
      ['community_posts', 'alpha'],
      ['faqs', ''],
      ['faqs', 'alpha'],
    ]);
    for (const r of rows) expect(r.frac).toBeGreaterThan(r.lexeme === 'alpha' ? 0.2 : 0);
    for (const r of rows) if (r.lexeme === '') expect(r.frac).toBeLessThan(0.01);
  });

  it('ranks by BM25 with exact word frequencies while few rows match, statistics or not', async () => {
    const fresh = await createTestContext();
    try {
      const program = await resolveProgramId(fresh.ctx, undefined);
      const tag = Date.now().toString(36);
      // "widget" is in every row; zebra${tag} in one. Repeated, the common word would win on
      // term frequency alone; its weight is near zero once its frequency is counted.
      const questions = [`Widget widget widget setup`, `Zebra${tag} mode`, ...Array.from({ length: 30 }, (_, i) => `Widget page ${i}`)];
      const answers = questions.map((_, i) => (i === 1 ? 'Turn it on in settings.' : 'See the widget notes.'));
      const { rows } = await fresh.ctx.pool.query<{ id: string }>(
        `INSERT INTO faqs (batch_id, question, answer)
         SELECT $1, q, a FROM unnest($2::text[], $3::text[]) WITH ORDINALITY u(q, a, n) ORDER BY n RETURNING id`,
        [program, questions, answers],
      );
      const sql = buildHybridSql({ sources: ['faq'], modes: ['text'], filter: false });
      const ranked = (await fresh.ctx.pool.query(sql, [`widget zebra${tag}`, null, program])).rows as { id: string; textScore: number }[];
      expect(ranked[0]?.id).toBe(rows[1]?.id);
      expect(ranked).toHaveLength(5);
      for (const r of ranked) expect(r.textScore).toBeGreaterThan(0);
      for (const r of ranked) expect(r.textScore).toBeLessThan(1);
    } finally {
      await fresh.close();
    }
  });

  it('scores BM25 as written: k1, b, a body occurrence worth BODY_WEIGHT of a title one, lengths in distinct words', async () => {
    // At 400 rows every match is a candidate and document frequencies are counted exactly, so each
    // textScore can be recomputed here from the rows' own tsvectors. BM25's average length is the
    // candidates' for FAQs, and the program's visible rows' where the table stores each row's length
    // (the knowledge tables): there, inside a rolled-back transaction, the FAQs' rows copied as
    // approved, and long rows pending review that count in N but in neither the average nor the ranking.
    const client = await t.ctx.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO transcript_knowledge (batch_id, title, content, status)
         SELECT batch_id, question, answer, 'approved'::knowledge_status FROM faqs WHERE ${SOURCE_TABLES.faq.visible.replaceAll('$3', '$1')}
         UNION ALL
         SELECT $1, 'alpha golf kilo pending ' || i, repeat('charlie mike november oscar papa item7 words ', 20) || i, 'pending_review'
         FROM generate_series(1, 40) i`,
        [programId],
      );
      for (const source of ['faq', 'transcript_knowledge'] as const) await expectBm25AsWritten(client, source);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  async function expectBm25AsWritten(client: pg.PoolClient, source: 'faq' | 'transcript_knowledge') {
    const src = SOURCE_TABLES[source];
    const { rows: entries } = await client.query<{ id: string; lexeme: string; weights: string[]; len: number }>(
      `SELECT f.id, u.lexeme, u.weights, length(f.search_vector) AS len
       FROM ${src.table} f, unnest(f.search_vector) u WHERE ${src.visible.replaceAll('$3', '$1')}`,
      [programId],
    );
    const n = Number(
      (
        await client.query<{ n: number }>(
          `SELECT CASE WHEN reltuples > 0 THEN reltuples ELSE (SELECT count(*) FROM ${src.table}) END AS n FROM pg_class WHERE oid = '${src.table}'::regclass`,
        )
      ).rows[0]?.n,
    );
    const docs = new Map<string, { len: number; tf: Map<string, { all: number; title: number }> }>();
    for (const e of entries) {
      const d = docs.get(e.id) ?? { len: e.len, tf: new Map() };
      docs.set(e.id, d);
      d.tf.set(e.lexeme, { all: e.weights.length, title: e.weights.filter((w) => w === 'A').length });
    }
    for (const query of ['charlie golf kilo', 'alpha', 'mike november oscar papa item7']) {
      const words = (
        await client.query<{ w: string }>("SELECT unnest(tsvector_to_array(to_tsvector('english', $1))) AS w", [query])
      ).rows.map((r) => r.w);
      const candidates = [...docs.values()].filter((d) => words.some((w) => d.tf.has(w)));
      const averaged = src.lengthColumn ? [...docs.values()] : candidates;
      const avg = averaged.reduce((s, d) => s + d.len, 0) / averaged.length;
      const idf = new Map(
        words.map((w) => {
          const df = candidates.filter((d) => d.tf.has(w)).length;
          return [w, Math.log(1 + (Math.max(n - df, 0) + 0.5) / (df + 0.5))];
        }),
      );
      const total = [...idf.values()].reduce((s, x) => s + x, 0) * (BM25_K1 + 1);
      const expected = new Map(
        [...docs.entries()].map(([id, d]) => {
          let s = 0;
          for (const w of words) {
            const o = d.tf.get(w);
            if (!o) continue;
            const tf = o.title + BODY_WEIGHT * (o.all - o.title);
            s += ((idf.get(w) as number) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * d.len) / avg));
          }
          return [id, s / total];
        }),
      );
      const sql = buildHybridSql({ sources: [source], modes: ['text'], filter: false });
      const ranked = (await client.query(sql, [query, null, programId])).rows as { id: string; textScore: number }[];
      expect(ranked, `${source} ${query}`).toHaveLength(5);
      const best = [...expected.values()].sort((a, b) => b - a);
      for (const [i, r] of ranked.entries()) {
        expect(r.textScore, `${source} ${query}: ${r.id}`).toBeCloseTo(expected.get(r.id) as number, 9);
        expect(r.textScore, `${source} ${query}: rank ${i + 1}`).toBeCloseTo(best[i] as number, 9);
      }
    }
  }

  it('finds rows holding only one of the query words, in their body, when nothing matches better', async () => {
    const tag = Date.now().toString(36);
    const [w1, w2] = [`quokkatron${tag}`, `wallabyzer${tag}`];
    const { rows: made } = await t.ctx.pool.query<{ id: string }>(
      `INSERT INTO faqs (batch_id, question, answer) VALUES ($1, 'How do I pair it', $2), ($1, 'How do I reset it', $3) RETURNING id`,
      [programId, `Hold the ${w1} button.`, `Press the ${w2} switch.`],
    );
    const sql = buildHybridSql({ sources: ['faq'], modes: ['text'] });
    const found = (await t.ctx.pool.query(sql, [`${w1} ${w2}`, null, programId])).rows.map((r) => r.id);
    expect(found.sort()).toEqual(made.map((r) => r.id).sort());
  });

  it('beside a vector list, lists what scoring every match and cutting at the share lists, rows without an embedding kept, on every source', async () => {
    // The fused statement scores only the candidates whose matching words could reach the share
    // (by their IDF sum) and the rows without an embedding: its keyword list must be the text-only
    // ranking (every match scored) cut at TEXT_LIST_MIN_SCORE, then the rows without an embedding.
    // Inside a rolled-back transaction: the knowledge table gets the FAQs' rows, and each table a row
    // without an embedding that holds one common word only.
    const client = await t.ctx.pool.connect();
    try {
      await prepareSearchConnection(client);
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO transcript_knowledge (batch_id, title, content, status, embedding) SELECT batch_id, question, answer, 'approved', embedding FROM faqs`,
      );
      const bare = new Set<string>();
      for (const sql of [
        'INSERT INTO faqs (batch_id, question, answer) VALUES ($1, $2, $3) RETURNING id',
        `INSERT INTO transcript_knowledge (batch_id, title, content, status) VALUES ($1, $2, $3, 'approved') RETURNING id`,
      ]) {
        const { rows } = await client.query<{ id: string }>(sql, [programId, 'alpha nothing else', 'no embedding yet']);
        bare.add(rows[0]?.id as string);
      }
      // A row matching one word of three, whose IDF is under 0.4 of the query's, that still reaches the
      // share by repeating it (scoring only rows whose words' IDF reaches twice the share misses it).
      // And a row holding only the query's lowest-IDF word, many times, that reaches the share: a
      // candidate is scored unless the words it holds cannot reach the share together (the weak words,
      // whose IDF sums stay under it), never merely because they are the query's weakest.
      const weakOnly = ['alphax alphax alphax', 'alphax alphax alphax alphax'];
      for (const [title, body] of [
        ['quasarx', 'quasarx quasarx quasarx quasarx'],
        ['pulsarx one', 'other text'],
        ['pulsarx two', 'more text'],
        weakOnly,
        ...Array.from({ length: 5 }, (_, i) => [`alphax filler ${i}`, 'plain words and more of them']),
        ['betax one', 'other words'],
        ['betax two', 'more words'],
        ['gammax one', 'other words'],
        ['gammax two', 'more words'],
      ] as [string, string][]) {
        const e = toVectorLiteral(embedText(`${title}\n${body}`));
        await client.query('INSERT INTO faqs (batch_id, question, answer, embedding) VALUES ($1, $2, $3, $4::vector)', [
          programId,
          title,
          body,
          e,
        ]);
        await client.query(
          `INSERT INTO transcript_knowledge (batch_id, title, content, status, embedding) VALUES ($1, $2, $3, 'approved', $4::vector)`,
          [programId, title, body, e],
        );
      }
      await client.query('ANALYZE transcript_knowledge');
      const queries = [
        'alpha item7',
        'alpha delta golf',
        'kilo item12 mike item30',
        'golf',
        'item7 item8 alpha bravo charlie',
        'quasarx pulsarx nebulax',
        'alphax betax gammax',
      ];
      for (const source of ['faq', 'transcript_knowledge'] as const) {
        const textOnly = buildHybridSql({ sources: [source], modes: ['text'], filter: false });
        const fused = buildHybridSql({ sources: [source], filter: false, limit: 10 });
        for (const q of queries) {
          const all = (await client.query(textOnly, [q, null, programId])).rows as { id: string; textScore: number }[];
          const got = (await client.query(fused, [q, toVectorLiteral(embedText(q)), programId])).rows as {
            id: string;
            textScore: number;
            textRank: number | null;
          }[];
          const list = got.filter((r) => r.textRank !== null).sort((a, b) => (a.textRank ?? 0) - (b.textRank ?? 0));
          const strong = all.filter((r) => r.textScore >= TEXT_LIST_MIN_SCORE);
          expect(strong.length, `${source}: ${q}`).toBeGreaterThan(0);
          expect(
            list.slice(0, strong.length).map((r) => r.id),
            `${source}: ${q}`,
          ).toEqual(strong.map((r) => r.id));
          for (const [i, r] of strong.entries()) expect(list[i]?.textScore, `${source}: ${q}`).toBeCloseTo(r.textScore, 9);
          for (const r of list.slice(strong.length)) expect(bare.has(r.id), `${source}: ${q}`).toBe(true);
          if (q === 'alphax betax gammax') {
            const table = source === 'faq' ? 'faqs' : 'transcript_knowledge';
            const title = source === 'faq' ? 'question' : 'title';
            const { rows } = await client.query<{ id: string }>(`SELECT id FROM ${table} WHERE ${title} = $1`, [weakOnly[0]]);
            expect(
              list.map((r) => r.id),
              source,
            ).toContain(rows[0]?.id);
          }
          // "alpha" sits in a third of the rows: the row without an embedding scores far below the share.
          if (q === 'alpha item7')
            expect(
              list.filter((r) => bare.has(r.id)),
              source,
            ).toHaveLength(1);
        }
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('beside a vector list, keeps in the keyword list only rows matching a fair share of the query; text-only keeps every match', async () => {
    // "item7" sits in one row, "alpha" in many: rows holding only "alpha" score far below the share.
    const q = 'alpha item7';
    const vector = toVectorLiteral(embedText(q));
    const textOnly = (await t.ctx.pool.query(buildHybridSql({ sources: ['faq'], modes: ['text'], filter: false }), [q, null, programId]))
      .rows as { textScore: number; textRank: number | null }[];
    expect(textOnly).toHaveLength(5);
    expect(textOnly.some((r) => r.textScore < TEXT_LIST_MIN_SCORE)).toBe(true);
    const fused = (await t.ctx.pool.query(buildHybridSql({ sources: ['faq'], filter: false, limit: 10 }), [q, vector, programId])).rows as {
      title: string;
      textScore: number;
      textRank: number | null;
    }[];
    const keywordList = fused.filter((r) => r.textRank !== null);
    expect(keywordList.map((r) => r.title)).toContain(`${text(7, 5)} item7`);
    for (const r of keywordList) expect(r.textScore).toBeGreaterThanOrEqual(TEXT_LIST_MIN_SCORE);
    // A vector-list row left out of the keyword list keeps its real textScore (the fixed filter sees it).
    expect(fused.some((r) => r.textRank === null && r.textScore > 0)).toBe(true);
  });
});
