import {
  backfillEmbeddings,
  CALIBRATION,
  Code,
  cosineSimilarity,
  createEmbedder,
  createLogger,
  embeddingText,
  embedRow,
  embedText,
  LocalEmbedder,
  OllamaEmbedder,
  resolveProgramId,
  SentenceEmbedder,
  sentenceEncoder,
  spellingCorrections,
  unavailable,
  withSpelling,
} from '@cfaq/core';
import { communityPosts, confMeetings, documentInsights, faqs, transcriptKnowledge } from '@cfaq/db/schema/index';
import { createTestContext, createUser, type FakeOllama, startFakeOllama, type TestContext, testConfig } from '@cfaq/testkit';
import { eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reprocessMeeting } from '../src/conf/meetings.js';
import { processMeeting } from '../src/conf/process.js';
import { uploadTranscript } from '../src/conf/upload.js';
import { ingestDocument } from '../src/knowledge/items.js';

let t: TestContext;
let ollama: FakeOllama;
let programId: string;

beforeAll(async () => {
  ollama = await startFakeOllama();
  // The product's default embedder (the test default is the local one): the backfill test switches away from it.
  t = await createTestContext({ env: { EMBEDDER: 'auto' } });
  programId = await resolveProgramId(t.ctx, undefined);
});
afterAll(async () => {
  await t.close();
  await ollama.close();
});

const cos = (a: string, b: string) => cosineSimilarity(embedText(a), embedText(b));

describe('local embedder', () => {
  it('is deterministic, 768-dimensional and unit length, with a fixed vector for a text without words', () => {
    const v = embedText('How do I reset my password?');
    expect(v).toHaveLength(768);
    expect(Math.hypot(...v)).toBeCloseTo(1, 9);
    expect(embedText('How do I reset my password?')).toEqual(v);
    const empty = embedText('?!');
    expect(Math.hypot(...empty)).toBeCloseTo(1, 9);
    expect(cos('?!', '...')).toBeCloseTo(1, 9);
  });

  it('scores a question asked again in other case and function words near 1, and unrelated questions low', () => {
    expect(cos('How do I reset my password?', 'how can I RESET my password')).toBeGreaterThan(0.95);
    expect(cos('How do I reset my password?', 'When does the spring program start?')).toBeLessThan(0.3);
  });

  it('places synonyms and related words closer than unrelated ones (its word-vector half)', () => {
    const refund = 'how do I get a refund';
    expect(cos(refund, 'can I have my money back')).toBeGreaterThan(cos(refund, 'where do I park my car') + 0.15);
    expect(cos('sign up for the next cohort', 'register for the next batch')).toBeGreaterThan(
      cos('sign up for the next cohort', 'change my profile photo') + 0.15,
    );
  });

  it('keeps typos near the word through character trigrams (its lexical half)', () => {
    expect(cos('scholarship application', 'scholarhsip aplication')).toBeGreaterThan(
      cos('scholarship application', 'parking permit') + 0.1,
    );
  });
});

describe('spelling corrections', () => {
  it('maps a word the word list lacks to the most frequent known word one edit away', () => {
    expect(spellingCorrections('How do I recieve my scholarhsip?')).toEqual(
      new Map([
        ['recieve', 'receive'],
        ['scholarhsip', 'scholarship'],
      ]),
    );
  });

  it('leaves known words, short words, words with digits and words with no near neighbour alone', () => {
    expect(spellingCorrections('reset password wifi 2fa ssn fafsa zoom')).toEqual(new Map());
  });

  it('appends corrections for matching and swaps them in for the sentence encoder', () => {
    expect(withSpelling('Scholarhsip deadline')).toEqual({
      added: 'Scholarhsip deadline scholarship',
      replaced: 'scholarship deadline',
      corrections: 1,
    });
    expect(withSpelling('scholarship deadline')).toEqual({
      added: 'scholarship deadline',
      replaced: 'scholarship deadline',
      corrections: 0,
    });
  });
});

describe('sentence embedder (hashing + GloVe + Universal Sentence Encoder lite, offline)', () => {
  const embedder = new SentenceEmbedder();
  const sim = async (a: string, b: string) => {
    const [x, y] = await embedder.embed([a, b]);
    return cosineSimilarity(x as number[], y as number[]);
  };

  it('loads the model once per process from the shipped weights and gives 768-dim unit vectors', async () => {
    expect(sentenceEncoder()).toBe(sentenceEncoder());
    const [v] = await embedder.embed(['How do I reset my password?']);
    expect(v).toHaveLength(768);
    expect(Math.hypot(...(v as number[]))).toBeCloseTo(1, 6);
    expect(await sim('How do I reset my password?', 'How do I reset my password?')).toBeCloseTo(1, 6);
  });

  it('ranks a rephrasing with no shared content word above an unrelated question', async () => {
    const q = 'how do i get a refund';
    expect(await sim(q, 'can i have my money back')).toBeGreaterThan(await sim(q, 'where do i park my car'));
    expect(await sim('sign up for the next cohort', 'register for the next batch')).toBeGreaterThan(
      await sim('sign up for the next cohort', 'change my profile photo'),
    );
  });

  it('reads a misspelt word as its correction (0.87 without the correction)', async () => {
    expect(await sim('scholarhsip deadline', 'scholarship deadline')).toBeGreaterThan(0.95);
  });

  it('keeps cosine on the calibrated scale: c + (1 - c) x the parts, so unrelated texts stay under 0.80', async () => {
    const [x, y] = await embedder.embed(['When does the spring program start?', 'My laptop battery drains overnight']);
    const parts = (v: number[]) => v.slice(0, 767);
    const raw = cosineSimilarity(parts(x as number[]), parts(y as number[]));
    expect(await sim('When does the spring program start?', 'My laptop battery drains overnight')).toBeCloseTo(
      CALIBRATION + (1 - CALIBRATION) * raw,
      6,
    );
    expect(await sim('When does the spring program start?', 'My laptop battery drains overnight')).toBeLessThan(0.8);
  });
});

describe('Ollama embedder', () => {
  it('speaks POST /api/embed with the configured model and returns 768-dim vectors', async () => {
    const e = new OllamaEmbedder({ host: ollama.url, model: 'nomic-embed-text' });
    const vectors = await e.embed(['reset my password', 'opening hours']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(768);
    const last = ollama.requests.at(-1);
    expect(last).toMatchObject({
      path: '/api/embed',
      body: { model: 'nomic-embed-text', input: ['reset my password', 'opening hours'], truncate: true },
    });
    const warm = await e.warm();
    expect(warm.model).toBe('nomic-embed-text');
  });

  it('fails on an unknown model, a server error, or a wrong dimension', async () => {
    await expect(new OllamaEmbedder({ host: ollama.url, model: 'missing-model' }).embed(['x'])).rejects.toThrow(/not found/);
    await expect(new OllamaEmbedder({ host: ollama.url, model: 'missing-model' }).warm()).rejects.toMatchObject({
      status: 503,
      code: 'EMBEDDER_UNAVAILABLE',
    });
    ollama.failNext(500, 'model crashed');
    await expect(new OllamaEmbedder({ host: ollama.url, model: 'nomic-embed-text' }).embed(['x'])).rejects.toThrow(/model crashed/);
    // Unreachable or failing, embed() is a 503 for whichever request needed the vectors (not a 500).
    ollama.failNext(500, 'model crashed');
    await expect(new OllamaEmbedder({ host: ollama.url, model: 'nomic-embed-text' }).embed(['x'])).rejects.toMatchObject({
      status: 503,
      code: 'EMBEDDER_UNAVAILABLE',
    });
    await expect(new OllamaEmbedder({ host: 'http://127.0.0.1:9', model: 'nomic-embed-text' }).embed(['x'])).rejects.toMatchObject({
      status: 503,
      code: 'EMBEDDER_UNAVAILABLE',
    });
    const narrow = await startFakeOllama({ vectorFor: () => [0.1, 0.2, 0.3] });
    try {
      // A model of another size is unavailable too (knowledge ingest answered 500 with it).
      const wrongSize = new OllamaEmbedder({ host: narrow.url, model: 'nomic-embed-text' }).embed(['x']);
      await expect(wrongSize).rejects.toMatchObject({ status: 503, code: 'EMBEDDER_UNAVAILABLE' });
      await expect(wrongSize).rejects.toThrow(/3 dimensions/);
    } finally {
      await narrow.close();
    }
  });

  it('refuses a vector of zeros (503) and stores any other at length 1, so float4 holds it and a cosine exists', async () => {
    let value = 0;
    const odd = await startFakeOllama({ vectorFor: () => Array.from({ length: 768 }, (_, i) => (i < 2 ? value : 0)) });
    try {
      const e = new OllamaEmbedder({ host: odd.url, model: 'nomic-embed-text' });
      // A zero vector's cosine is NaN: the search ranked anything first and its score failed the serializer (500).
      await expect(e.embed(['x'])).rejects.toMatchObject({ status: 503, code: 'EMBEDDER_UNAVAILABLE' });
      // 1e39 is finite in JavaScript but past float4 (the ::vector cast failed as a client's 400); 1e300 squared overflows.
      for (value of [1e39, 1e300, 3e-5]) {
        const [v] = await e.embed(['x']);
        expect(v?.slice(0, 3)).toEqual([Math.SQRT1_2, Math.SQRT1_2, 0].map((x) => expect.closeTo(x, 12)));
        const [hit] = (
          await t.ctx.pool.query<{ cos: number }>(`SELECT 1 - ($1::vector <=> $1::vector) AS cos`, [`[${(v ?? []).join(',')}]`])
        ).rows;
        expect(hit?.cos).toBeCloseTo(1, 5);
      }
    } finally {
      await odd.close();
    }
  });

  it('sends OLLAMA_API_KEY as a bearer token to its host (an Ollama behind an authenticating proxy), and none without it', async () => {
    const log = createLogger({ level: 'silent' });
    const keyed = createEmbedder(testConfig({ EMBEDDER: 'auto', OLLAMA_HOST: ollama.url, OLLAMA_API_KEY: 'ollama-proxy-key-123' }), log);
    await keyed.embed(['reset my password']);
    expect(ollama.requests.at(-1)?.authorization).toBe('Bearer ollama-proxy-key-123');
    await createEmbedder(testConfig({ EMBEDDER: 'auto', OLLAMA_HOST: ollama.url }), log).embed(['reset my password']);
    expect(ollama.requests.at(-1)?.authorization).toBeUndefined();
  });

  it('is chosen by the factory when OLLAMA_HOST is set (EMBEDDER=auto), the sentence embedder otherwise; local on request', () => {
    const log = createLogger({ level: 'silent' });
    const base = { DATABASE_URL: t.url, EMBEDDER: 'auto' };
    expect(createEmbedder(testConfig({ ...base, OLLAMA_HOST: ollama.url }), log)).toBeInstanceOf(OllamaEmbedder);
    expect(createEmbedder(testConfig(base), log)).toBeInstanceOf(SentenceEmbedder);
    expect(createEmbedder(testConfig(base), log).model).toBe('local-hash-use-lite-joined-25-25-50-c59-spell');
    expect(createEmbedder(testConfig({ ...base, EMBEDDER_LAYOUT: 'replace' }), log).model).toBe(
      'local-hash-use-lite-replace-30-0-70-c59-spell',
    );
    expect(createEmbedder(testConfig({ ...base, EMBEDDER: 'local' }), log).model).toBe('local-hash-glove-v2');
    expect(createEmbedder(testConfig({ ...base, OLLAMA_HOST: ollama.url, EMBEDDER: 'local' }), log).model).toBe('local-hash-glove-v2');
  });
});

describe('embed-row job and backfill', () => {
  it('embeds a row, reports a missing one, and leaves a row whose text changed meanwhile', async () => {
    const [f] = await t.ctx.db.insert(faqs).values({ batchId: programId, question: 'Q one', answer: 'A one' }).returning({ id: faqs.id });
    const id = (f as { id: string }).id;
    expect(await embedRow(t.ctx, { table: 'faqs', id })).toEqual({ status: 'embedded' });
    const [row] = await t.ctx.db.select({ embedding: faqs.embedding, embeddedAt: faqs.embeddedAt }).from(faqs).where(eq(faqs.id, id));
    expect(row?.embedding).toHaveLength(768);
    expect(row?.embeddedAt).toBeInstanceOf(Date);

    expect(await embedRow(t.ctx, { table: 'community_posts', id: '00000000-0000-4000-8000-000000000000' })).toEqual({ status: 'missing' });

    // An edit lands while the embedder works: the stale vector is not written.
    const [p] = await t.ctx.db
      .insert(communityPosts)
      .values({ batchId: programId, title: 'T', body: 'B' })
      .returning({ id: communityPosts.id });
    const postId = (p as { id: string }).id;
    const slow = {
      model: 'slow',
      warm: async () => ({ model: 'slow', ms: 0 }),
      embed: async (texts: string[]) => {
        await t.ctx.db.update(communityPosts).set({ body: 'B edited' }).where(eq(communityPosts.id, postId));
        return t.ctx.embedder.embed(texts);
      },
    };
    expect(await embedRow({ ...t.ctx, embedder: slow }, { table: 'community_posts', id: postId })).toEqual({ status: 'changed' });
    const [post] = await t.ctx.db.select({ embedding: communityPosts.embedding }).from(communityPosts).where(eq(communityPosts.id, postId));
    expect(post?.embedding).toBeNull();
  });

  it('embeds FAQs and knowledge from title and body, community posts from their title', async () => {
    expect(embeddingText('faqs', 'How do I reset my password?', 'Use the link')).toBe('How do I reset my password?\nUse the link');
    expect(embeddingText('transcript_knowledge', 'Title', 'Content')).toBe('Title\nContent');
    expect(embeddingText('community_posts', 'Export fails on large files', 'A long story')).toBe('Export fails on large files');
    const question = 'How do I export a workbook over fifty megabytes?';
    const answer = 'Split the workbook or export each sheet on its own.';
    const [f] = await t.ctx.db.insert(faqs).values({ batchId: programId, question, answer }).returning({ id: faqs.id });
    const id = (f as { id: string }).id;
    expect(await embedRow(t.ctx, { table: 'faqs', id })).toEqual({ status: 'embedded' });
    const [expected] = await t.ctx.embedder.embed([`${question}\n${answer}`]);
    const { rows } = await t.ctx.pool.query<{ score: number; model: string }>(
      'SELECT 1 - (embedding <=> $1::vector) AS score, embedding_model AS model FROM faqs WHERE id = $2',
      [`[${(expected as number[]).join(',')}]`, id],
    );
    expect(rows[0]?.model).toBe(t.ctx.embedder.model);
    expect(rows[0]?.score).toBeGreaterThan(0.9999);
  });

  it('backfills every table in batches', async () => {
    await t.ctx.db.insert(faqs).values(Array.from({ length: 5 }, (_, i) => ({ batchId: programId, question: `bf ${i}`, answer: 'a' })));
    await t.ctx.db.insert(transcriptKnowledge).values({ batchId: programId, title: 'tk', content: 'c' });
    await t.ctx.db.insert(documentInsights).values({ batchId: programId, title: 'di', content: 'c' });
    const before = await t.ctx.db.select({ id: faqs.id }).from(faqs).where(isNull(faqs.embedding));
    const result = await backfillEmbeddings(t.ctx, { batchSize: 2 });
    const byTable = Object.fromEntries(result.map((r) => [r.table, r.embedded]));
    expect(byTable.faqs).toBe(before.length);
    expect(byTable.transcript_knowledge).toBe(1);
    expect(byTable.document_insights).toBe(1);
    expect(byTable.community_posts).toBeGreaterThanOrEqual(1);
    for (const table of [faqs, communityPosts, transcriptKnowledge, documentInsights]) {
      expect(await t.ctx.db.select({ id: table.id }).from(table).where(isNull(table.embedding))).toEqual([]);
    }
    expect(await backfillEmbeddings(t.ctx)).toEqual(result.map((r) => ({ table: r.table, embedded: 0 })));
  });

  it('rows embedded as they are written (transcript knowledge, documents) carry their model: the backfill leaves them', async () => {
    const admin = { id: (await createUser(t.ctx, { role: 'admin' })).id, role: 'admin' as const };
    await uploadTranscript(t.ctx, admin, {
      source: 'manual_raw',
      content: 'Alice: When is the capstone due?\nBob: Friday at noon, through the portal.',
      topic: 'Inline model',
    });
    await ingestDocument(t.ctx, admin, { title: 'Inline model doc', content: 'Stipends are paid on the first of the month.' });
    const { rows } = await t.ctx.pool.query<{ model: string | null }>(
      `SELECT embedding_model AS model FROM transcript_knowledge WHERE title LIKE 'Inline model%'
       UNION ALL SELECT embedding_model FROM document_insights WHERE title LIKE 'Inline model%'`,
    );
    expect(rows.length).toBe(2);
    for (const r of rows) expect(r.model).toBe(t.ctx.embedder.model);
    const again = await backfillEmbeddings(t.ctx, { tables: ['transcript_knowledge', 'document_insights'] });
    expect(again.every((r) => r.embedded === 0)).toBe(true);
  });

  it('an upload refused by a failing embedder (503) keeps its transcript: the failed meeting re-processes once it is back', async () => {
    const admin = { id: (await createUser(t.ctx, { role: 'admin' })).id, role: 'admin' as const };
    const down = { ...t.ctx, embedder: new OllamaEmbedder({ host: 'http://127.0.0.1:9', model: 'nomic-embed-text' }) };
    const upload = uploadTranscript(down, admin, {
      source: 'manual_raw',
      content: 'Alice: Where do I park my bike?\nBob: In the cage behind building B.',
      topic: 'Embedder down',
    });
    await expect(upload).rejects.toMatchObject({ status: 503, code: 'EMBEDDER_UNAVAILABLE' });
    const [failed] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.topic, 'Embedder down'));
    expect(failed?.status).toBe('failed');
    await reprocessMeeting(t.ctx, failed?.id as string);
    expect(await processMeeting(t.ctx, failed?.id as string)).toMatchObject({ status: 'completed' });
    const knowledge = await t.ctx.db
      .select()
      .from(transcriptKnowledge)
      .where(eq(transcriptKnowledge.meetingId, failed?.id as string));
    expect(knowledge.length).toBeGreaterThan(0);
  });

  it('a row the embedder refuses alone is left stale and logged: the rest of its batch and the later tables are embedded', async () => {
    const local = new LocalEmbedder();
    const poisoned = {
      model: 'poison-test',
      warm: () => local.warm(),
      embed: async (texts: string[]) => {
        if (texts.some((x) => x.includes('POISON'))) throw unavailable(Code.EMBEDDER_UNAVAILABLE, 'a vector of zeros');
        return local.embed(texts);
      },
    };
    const admin = { id: (await createUser(t.ctx, { role: 'admin' })).id, role: 'admin' as const };
    await ingestDocument(t.ctx, admin, { title: 'Poison row neighbour', content: 'Lockers are handed out on Mondays.' });
    const [poison] = await t.ctx.db
      .insert(faqs)
      .values({ batchId: programId, question: 'What is the POISON control number?', answer: 'Call the regional centre.' })
      .returning({ id: faqs.id });
    await backfillEmbeddings(t.ctx, { batchSize: 64, embedder: poisoned });
    const { rows } = await t.ctx.pool.query<{ id: string }>(
      `SELECT id FROM faqs WHERE embedding_model IS DISTINCT FROM 'poison-test'
       UNION ALL SELECT id FROM document_insights WHERE embedding_model IS DISTINCT FROM 'poison-test'`,
    );
    expect(rows.map((r) => r.id)).toEqual([poison?.id]);
    // An embedder that refuses everything is down: the batch and two rows alone, not every row (a hung
    // server would cost its timeout each time).
    let tries = 0;
    const down = { ...poisoned, model: 'down-test', embed: async () => Promise.reject(new Error(`down ${++tries}`)) };
    await expect(backfillEmbeddings(t.ctx, { batchSize: 64, embedder: down })).rejects.toThrow(/down 1/);
    expect(tries).toBe(3);
    await t.ctx.db.delete(faqs).where(eq(faqs.id, poison?.id as string));
  });

  it('re-embeds the rows of another embedder after a change, resuming where a failed run stopped', async () => {
    const total = async () => {
      const { rows } = await t.ctx.pool.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM faqs) + (SELECT count(*) FROM community_posts) + (SELECT count(*) FROM transcript_knowledge)
           + (SELECT count(*) FROM document_insights) AS n`,
      );
      return Number(rows[0]?.n);
    };
    const local = new LocalEmbedder();
    let calls = 0;
    const flaky = {
      model: local.model,
      warm: () => local.warm(),
      // Down from its third call on: the batch fails, and so does each of its rows tried alone.
      embed: async (texts: string[]) => {
        if (++calls >= 3) throw new Error('embedder crashed');
        return local.embed(texts);
      },
    };
    await expect(backfillEmbeddings(t.ctx, { batchSize: 2, embedder: flaky })).rejects.toThrow(/crashed/);
    const done = await t.ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM faqs WHERE embedding_model = $1', [local.model]);
    expect(done.rows[0]?.n).toBe(4);
    const resumed = await backfillEmbeddings(t.ctx, { batchSize: 2, embedder: local });
    expect(resumed.reduce((s, r) => s + r.embedded, 0)).toBe((await total()) - 4);
    const { rows } = await t.ctx.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM faqs WHERE embedding_model IS DISTINCT FROM $1',
      [local.model],
    );
    expect(rows[0]?.n).toBe(0);
  });

  it('stops between batches once the worker stops (the job signal), keeping what it committed', async () => {
    const local = new LocalEmbedder();
    const stopping = new AbortController();
    // Another embedder's name, so every row is stale; the worker stops while the first batch embeds.
    const renamed = {
      model: 'stop-test-model',
      warm: () => local.warm(),
      embed: async (texts: string[]) => {
        stopping.abort();
        return local.embed(texts);
      },
    };
    await expect(backfillEmbeddings(t.ctx, { batchSize: 2, embedder: renamed, tables: ['faqs'], signal: stopping.signal })).rejects.toThrow(
      /stopped after 2 faqs rows; the retry goes on/,
    );
    const count = async () =>
      Number(
        (await t.ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM faqs WHERE embedding_model = $1', ['stop-test-model']))
          .rows[0]?.n,
      );
    expect(await count()).toBe(2);
    // The retry resumes: every FAQ ends on the new model.
    const resumed = await backfillEmbeddings(t.ctx, {
      batchSize: 2,
      embedder: { ...renamed, embed: (x: string[]) => local.embed(x) },
      tables: ['faqs'],
    });
    const { rows } = await t.ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM faqs');
    expect(await count()).toBe(rows[0]?.n);
    expect(resumed[0]?.embedded).toBe(Number(rows[0]?.n) - 2);
  });
});
