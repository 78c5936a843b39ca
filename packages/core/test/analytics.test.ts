import { batches, communityPosts, faqs, searchLogs, unresolvedSearches } from '@cfaq/db/schema/index';
import { createTestContext, createUser, type TestContext } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommunity, communityChart, communityGrowth, userActivity } from '../src/analytics/admin-community.js';
import { faqGrowth, listAdminFaqs } from '../src/analytics/admin-faqs.js';
import { adminStats } from '../src/analytics/admin-stats.js';
import { communityAnalytics } from '../src/analytics/community.js';
import { analyticsOverview } from '../src/analytics/overview.js';
import { bucketCount, MAX_BUCKETS, MAX_RANGE_DAYS, resolveRange } from '../src/analytics/range.js';
import { rollUpSearchLogs } from '../src/analytics/rollup.js';
import * as S from '../src/analytics/schemas.js';
import { searchAnalytics } from '../src/analytics/search.js';
import { searchInsights } from '../src/analytics/search-insights.js';
import { fixedClock } from '../src/runtime/clock.js';
import { expectShape } from './shape-check.js';

const NOW = new Date('2026-03-15T12:00:00Z');
const day = (s: string) => new Date(`${s}T00:00:00Z`);

describe('resolveRange', () => {
  it('defaults to the 30 days up to today (UTC)', () => {
    expect(resolveRange({}, NOW)).toMatchObject({ from: '2026-02-14', to: '2026-03-15', interval: 'day' });
    expect(resolveRange({ to: '2026-01-31' }, NOW)).toMatchObject({ from: '2026-01-02', to: '2026-01-31' });
    const r = resolveRange({ from: '2026-03-01', to: '2026-03-01' }, NOW);
    expect([r.start.toISOString(), r.end.toISOString()]).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z']);
  });

  it('refuses impossible dates, reversed and over-long ranges, naming the field', () => {
    const field = (q: Parameters<typeof resolveRange>[0]) => {
      try {
        resolveRange(q, NOW);
        return null;
      } catch (e) {
        return (e as { errors?: { path: string }[] }).errors?.[0]?.path;
      }
    };
    expect(field({ from: '2026-02-30' })).toBe('query.from');
    expect(field({ to: '2026-13-01' })).toBe('query.to');
    expect(field({ from: '2026-03-02', to: '2026-03-01' })).toBe('query.from');
    expect(field({ from: '2023-01-01', to: '2026-01-01' })).toBe('query.from');
    expect(field({ from: '2024-12-31', to: '2026-01-01', interval: 'day' })).toBe('query.interval');
    expect(field({ from: '2025-01-01', to: '2026-01-01', interval: 'day' })).toBeNull();
    expect(field({ from: '2025-01-01', to: '2026-01-01', interval: 'week' })).toBeNull();
    expect(MAX_RANGE_DAYS).toBe(1096);
    expect(MAX_BUCKETS).toBe(366);
  });

  it('counts the buckets a range touches, partial edges included', () => {
    // 2026-03-01 is a Sunday: its week starts 2026-02-23.
    expect(bucketCount(day('2026-03-01'), day('2026-03-14'), 'week')).toBe(3);
    expect(bucketCount(day('2026-03-02'), day('2026-03-08'), 'week')).toBe(1);
    expect(bucketCount(day('2026-01-31'), day('2026-03-01'), 'month')).toBe(3);
    expect(bucketCount(day('2025-12-31'), day('2026-01-01'), 'day')).toBe(2);
  });
});

describe('dashboard results match their shapes', () => {
  let t: TestContext;
  let batchId: string;
  beforeAll(async () => {
    t = await createTestContext({ clock: fixedClock(NOW) });
    const [b] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
    batchId = b?.id as string;
    const u = await createUser(t.ctx);
    await t.ctx.db.insert(communityPosts).values([
      { batchId, authorId: u.id, title: 'T', body: 'B', createdAt: day('2026-03-10'), answeredAt: day('2026-03-11') },
      { batchId, authorId: u.id, title: 'T', body: 'B', createdAt: day('2026-03-12'), aiAnswerStatus: 'approved' },
    ]);
    await t.ctx.db.insert(faqs).values({ batchId, question: 'Q?', answer: 'A.', freshnessTier: 'volatile', reviewIntervalDays: 4 });
    await t.ctx.db.insert(searchLogs).values({ batchId, query: 'x', normalizedQuery: 'x', resultCount: 0, createdAt: day('2026-03-13') });
    await t.ctx.db.insert(unresolvedSearches).values({ batchId, query: 'x', normalizedQuery: 'x' });
    await rollUpSearchLogs(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every dashboard, filled and for one program', async () => {
    for (const q of [{}, { batchId, interval: 'week' as const }]) {
      expectShape(S.Overview, await analyticsOverview(t.ctx, q));
      expectShape(S.SearchAnalytics, await searchAnalytics(t.ctx, q));
      expectShape(S.CommunityAnalytics, await communityAnalytics(t.ctx, q));
      expectShape(S.AdminStats, await adminStats(t.ctx, q));
      expectShape(S.AdminFaqList, await listAdminFaqs(t.ctx, q));
      expectShape(S.FaqGrowth, await faqGrowth(t.ctx, q));
      expectShape(S.AdminCommunity, await adminCommunity(t.ctx, q));
      expectShape(S.CommunityChart, await communityChart(t.ctx, q));
      expectShape(S.CommunityGrowth, await communityGrowth(t.ctx, q));
      expectShape(S.SearchInsights, await searchInsights(t.ctx, q));
      expectShape(S.UserActivity, await userActivity(t.ctx, q));
    }
    expect((await searchAnalytics(t.ctx, {})).searches).toBe(1);
  });
});
