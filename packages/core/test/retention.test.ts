import {
  batches,
  confOauthStates,
  pipelineResults,
  refreshTokens,
  searchDailyStats,
  searchLogs,
  searchQueryDaily,
  teaWithdrawals,
} from '@cfaq/db/schema/index';
import { createTestContext, createUser, type TestContext } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetention } from '../src/retention/run.js';
import { fixedClock } from '../src/runtime/clock.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);
let t: TestContext;

beforeAll(async () => {
  t = await createTestContext({ clock: fixedClock(NOW) });
});
afterAll(async () => {
  await t.close();
});

describe('retention job', () => {
  it('deletes what has outlived its retention and keeps the rest', async () => {
    const { db } = t.ctx;
    const [batch] = await db.select().from(batches).where(eq(batches.isDefault, true));
    const result = (title: string, checkedAt: Date) => ({
      pipeline: 'faq_audit' as const,
      targetModel: 'FAQ' as const,
      targetId: '00000000-0000-4000-8000-000000000001',
      targetTitle: title,
      verdict: 'correct' as const,
      flagged: false,
      checkedAt,
    });
    await db.insert(pipelineResults).values([result('old', daysAgo(31)), result('fresh', daysAgo(29))]);
    const log = (query: string, createdAt: Date) => ({ query, normalizedQuery: query, resultCount: 0, batchId: batch?.id, createdAt });
    await db.insert(searchLogs).values([log('old', daysAgo(91)), log('fresh', daysAgo(89))]);
    // The per-query rollup (query text) goes with the log; the daily totals (no text) stay.
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const q = (normalizedQuery: string, d: Date) => ({ day: day(d), batchId: batch?.id, normalizedQuery, searches: 1, zeroResults: 1 });
    await db.insert(searchQueryDaily).values([q('old', daysAgo(91)), q('fresh', daysAgo(89))]);
    const totals = { batchId: batch?.id, searches: 1, zeroResults: 1, cacheHits: 0, degraded: 0, latencySum: 0, latencyCount: 0 };
    await db.insert(searchDailyStats).values({ day: day(daysAgo(91)), ...totals });
    const user = await createUser(t.ctx);
    const token = (hash: string, expiresAt: Date) => ({ userId: user.id, familyId: user.id, tokenHash: hash, expiresAt });
    await db.insert(refreshTokens).values([token('expired', daysAgo(1)), token('live', daysAgo(-5))]);
    await db.insert(confOauthStates).values([
      { userId: user.id, nonce: 'expired', expiresAt: daysAgo(0.01) },
      { userId: user.id, nonce: 'live', expiresAt: daysAgo(-0.005) },
    ]);
    // A withdrawn tea drop's place in the stream: kept TEA_WITHDRAWAL_RETENTION_DAYS (30).
    const withdrawn = (id: string, withdrawnAt: Date) => ({ id, userId: user.id, streamXid: '1', withdrawnAt });
    await db
      .insert(teaWithdrawals)
      .values([
        withdrawn('00000000-0000-4000-8000-0000000000a1', daysAgo(31)),
        withdrawn('00000000-0000-4000-8000-0000000000a2', daysAgo(29)),
      ]);

    const counts = await runRetention(t.ctx);
    expect(counts).toEqual({
      pipelineResults: 1,
      searchLogs: 1,
      searchQueryRollup: 1,
      refreshTokens: 1,
      oauthStates: 1,
      teaWithdrawals: 1,
    });
    expect((await db.select().from(teaWithdrawals)).map((r) => r.id)).toEqual(['00000000-0000-4000-8000-0000000000a2']);
    expect((await db.select().from(searchQueryDaily)).map((r) => r.normalizedQuery)).toEqual(['fresh']);
    expect(await db.select().from(searchDailyStats)).toHaveLength(1);
    expect((await db.select().from(pipelineResults)).map((r) => r.targetTitle)).toEqual(['fresh']);
    expect((await db.select().from(searchLogs)).map((r) => r.query)).toEqual(['fresh']);
    expect((await db.select().from(refreshTokens)).map((r) => r.tokenHash)).toEqual(['live']);
    expect((await db.select().from(confOauthStates)).map((r) => r.nonce)).toEqual(['live']);

    expect(await runRetention(t.ctx)).toEqual({
      pipelineResults: 0,
      searchLogs: 0,
      searchQueryRollup: 0,
      refreshTokens: 0,
      oauthStates: 0,
      teaWithdrawals: 0,
    });
  });

  it('honours PIPELINE_RESULT_TTL_DAYS', async () => {
    const short = await createTestContext({ clock: fixedClock(NOW), env: { PIPELINE_RESULT_TTL_DAYS: '7' } });
    try {
      await short.ctx.db.insert(pipelineResults).values({
        pipeline: 'auto_answer',
        targetModel: 'CommunityPost',
        targetId: '00000000-0000-4000-8000-000000000002',
        targetTitle: 'eight days',
        verdict: 'suggested',
        flagged: true,
        checkedAt: daysAgo(8),
      });
      expect((await runRetention(short.ctx)).pipelineResults).toBe(1);
    } finally {
      await short.close();
    }
  });

  it('deletes in batches of RETENTION_BATCH_SIZE, keeps a row exactly at the TTL, and drains a backlog', async () => {
    const small = await createTestContext({ clock: fixedClock(NOW), env: { RETENTION_BATCH_SIZE: '100' } });
    try {
      const row = (i: number, checkedAt: Date) => ({
        pipeline: 'faq_audit' as const,
        targetModel: 'FAQ' as const,
        targetId: '00000000-0000-4000-8000-000000000003',
        targetTitle: `row ${i}`,
        verdict: 'correct' as const,
        flagged: false,
        checkedAt,
      });
      const justOver = new Date(daysAgo(30).getTime() - 1);
      await small.ctx.db
        .insert(pipelineResults)
        .values([
          ...Array.from({ length: 250 }, (_, i) => row(i, justOver)),
          row(1000, daysAgo(30)),
          row(1001, new Date(daysAgo(30).getTime() + 1)),
        ]);
      const statements: string[] = [];
      const execute = small.ctx.db.execute.bind(small.ctx.db);
      small.ctx.db.execute = ((q: Parameters<typeof execute>[0]) => {
        statements.push('delete');
        return execute(q);
      }) as typeof execute;
      const counts = await runRetention(small.ctx);
      expect(counts.pipelineResults).toBe(250);
      // 250 rows at 100 per statement: 100, 100, 50 for pipeline results, then one each for the other tables.
      expect(statements.length).toBe(3 + 5);
      expect((await small.ctx.db.select().from(pipelineResults)).map((r) => r.targetTitle).sort()).toEqual(['row 1000', 'row 1001']);
    } finally {
      await small.close();
    }
  });
});
