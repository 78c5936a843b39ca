import { batches } from '@cfaq/db/schema/index';
import { CraftedEmbedder, createKnowledge, createTestContext, defaultProgramId, type TestContext, unitVector } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchKnowledge } from '../src/knowledge/search.js';

const embedder = new CraftedEmbedder((text) => (text === 'refund question' ? unitVector(10) : undefined));
let t: TestContext;
let programId: string;
let otherProgram: string;

beforeAll(async () => {
  t = await createTestContext({ embedder });
  programId = await defaultProgramId(t.ctx);
  const [b] = await t.ctx.db.insert(batches).values({ name: 'Other', slug: 'other-kb' }).returning({ id: batches.id });
  otherProgram = b?.id as string;
});
afterAll(async () => {
  await t.close();
});

describe('searchKnowledge', () => {
  it('ranks approved transcript knowledge and document insights of the program by similarity, top k', async () => {
    const best = await createKnowledge(t.ctx, { kind: 'document_insight', title: 'Refunds', embedding: unitVector(10, 0.95) });
    const second = await createKnowledge(t.ctx, { kind: 'transcript_knowledge', title: 'Refund call', embedding: unitVector(10, 0.9) });
    const third = await createKnowledge(t.ctx, { kind: 'transcript_knowledge', title: 'Billing', embedding: unitVector(10, 0.5) });
    await createKnowledge(t.ctx, { kind: 'document_insight', title: 'Far', embedding: unitVector(10, 0.1) });
    await createKnowledge(t.ctx, { title: 'Pending', embedding: unitVector(10, 1), status: 'pending_review' });
    await createKnowledge(t.ctx, { kind: 'document_insight', title: 'Rejected', embedding: unitVector(10, 1), status: 'rejected' });
    await createKnowledge(t.ctx, { title: 'Other program', batchId: otherProgram, embedding: unitVector(10, 1) });
    await createKnowledge(t.ctx, { title: 'Not embedded', embedding: null });

    const hits = await searchKnowledge(t.ctx, { query: 'refund question', batchId: programId, k: 3 });
    expect(hits?.map((h) => [h.id, h.sourceType])).toEqual([
      [best.id, 'document_insight'],
      [second.id, 'transcript_knowledge'],
      [third.id, 'transcript_knowledge'],
    ]);
    expect(hits?.[0]?.score).toBeCloseTo(0.95, 5);
    expect(hits?.[1]?.score).toBeCloseTo(0.9, 5);

    const strong = await searchKnowledge(t.ctx, { query: 'refund question', batchId: programId, k: 5, minScore: 0.8 });
    expect(strong?.map((h) => h.id)).toEqual([best.id, second.id]);
    const other = await searchKnowledge(t.ctx, { query: 'refund question', batchId: otherProgram, k: 5 });
    expect(other?.map((h) => h.title)).toEqual(['Other program']);
  });

  it('returns null, never throws, when the search fails', async () => {
    embedder.failing = true;
    try {
      expect(await searchKnowledge(t.ctx, { query: 'refund question', batchId: programId, k: 3 })).toBeNull();
    } finally {
      embedder.failing = false;
    }
    expect(await searchKnowledge(t.ctx, { query: 'refund question', batchId: 'not-a-uuid', k: 3 })).toBeNull();
  });
});
