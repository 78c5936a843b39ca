import { pipelineResults } from '@cfaq/db/schema/index';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thresholdWhatIf } from '../src/auto-answer/what-if.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

describe('threshold what-if', () => {
  it('re-triages stored results as a run would: a match the model found insufficient stays suggested at most', async () => {
    const result = (
      targetId: string,
      confidence: number,
      metadata: Record<string, unknown>,
      verdict: 'suggested' | 'escalated' = 'suggested',
    ) => ({
      pipeline: 'auto_answer' as const,
      targetModel: 'CommunityPost' as const,
      targetId,
      targetTitle: targetId,
      verdict,
      flagged: false,
      confidence,
      metadata,
      checkedAt: new Date(),
    });
    await t.ctx.db.insert(pipelineResults).values([
      // Suggested although it matched at 0.90: the model said the sources do not answer the question.
      result('00000000-0000-4000-8000-000000000001', 0.9, { providerNote: 'the model found the sources insufficient' }),
      result('00000000-0000-4000-8000-000000000002', 0.8, {}),
      result('00000000-0000-4000-8000-000000000003', 0.9, { sensitive: 'legal' }, 'escalated'),
    ]);
    // The default thresholds change nothing.
    expect(await thresholdWhatIf(t.ctx, { approve: 0.85, suggest: 0.6 })).toMatchObject({ evaluated: 3, changed: 0 });
    // A lower approve threshold approves the plain match only.
    expect(await thresholdWhatIf(t.ctx, { approve: 0.75, suggest: 0.6 })).toMatchObject({
      changed: 1,
      transitions: [{ from: 'suggested', to: 'approved', count: 1 }],
    });
  });
});
