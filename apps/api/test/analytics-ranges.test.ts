import { fixedClock, resolveRange, rollUpCommunity, rollUpSearchLogs, topQueries } from '@cfaq/core';
import { batches, comments, communityPosts, searchLogs } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allQueriesSql, splitSearchRange } from '../../../packages/core/src/analytics/search-source.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * Audit fixes of the dashboards: the bucket cap only on series, exact top queries over rolled days,
 * a deleted post's comments, and from after to on the time-stamped admin lists.
 */
type Who = { headers: { authorization: string }; id: string };
const clock = fixedClock('2026-03-15T12:00:00Z');
let t: TestApp;
let admin: Who;
const at = (iso: string) => new Date(iso);
const get = (url: string) => t.app.inject({ method: 'GET', url: `/api${url}`, headers: admin.headers });
const program = async (slug: string) => {
  const [row] = await t.ctx.db.insert(batches).values({ name: slug, slug }).returning({ id: batches.id });
  return row?.id as string;
};
const logs = (batchId: string, createdAt: string, rows: [query: string, count: number, results?: number][]) =>
  t.ctx.db.insert(searchLogs).values(
    rows.map(([query, count, results]) => ({
      batchId,
      query,
      normalizedQuery: query,
      count,
      resultCount: results ?? 1,
      createdAt: at(createdAt),
    })),
  );

beforeAll(async () => {
  t = await createTestApp({ clock, env: GENEROUS_LIMITS });
  admin = await t.signIn('admin');
});
afterAll(async () => {
  await t?.close();
});

describe('range cap', () => {
  it('routes without a series take ranges up to 1,096 days; only series are held to 366 buckets', async () => {
    const year = 'from=2024-03-01&to=2025-06-01'; // 458 days
    for (const url of ['/analytics/overview', '/admin/community', '/admin/search/insights']) {
      const res = await get(`${url}?${year}`);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      expect(res.json().range).toMatchObject({ from: '2024-03-01', to: '2025-06-01' });
      const long = expectProblem(await get(`${url}?from=2022-01-01&to=2025-06-01`), 400, 'VALIDATION_FAILED');
      expect(long.errors?.[0]?.path).toBe('query.from');
    }
    for (const url of [
      '/analytics/search',
      '/analytics/community',
      '/admin/community/chart',
      '/admin/faqs/growth',
      '/admin/user-activity',
    ]) {
      const daily = expectProblem(await get(`${url}?${year}`), 400, 'VALIDATION_FAILED');
      expect(daily.errors?.[0]?.path).toBe('query.interval');
      expect((await get(`${url}?${year}&interval=week`)).statusCode).toBe(200);
    }
  });
});

describe('top queries over rolled days', () => {
  let needle: string;
  let tail: string;
  let mixed: string;
  beforeAll(async () => {
    // 9-15 March: 300 logs a day of 400 queries with skewed, often tied counts (a fixed pseudo-random sequence), some finding nothing.
    mixed = await program('top-queries-mixed');
    let seed = 7;
    const next = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    for (const day of ['09', '10', '11', '12', '13', '14', '15']) {
      const rows: [string, number, number][] = [];
      for (let i = 0; i < 300; i++) rows.push([`m${Math.floor(400 * next() ** 2)}`, 1 + Math.floor(4 * next() ** 3), next() < 0.3 ? 0 : 1]);
      await logs(mixed, `2026-03-${day}T08:00:00Z`, rows);
    }
    // Every log first, then one rollup (a rolled day is not rolled again but the last one).
    needle = await program('top-queries-exact');
    // 10 March: 60 queries tied at 3 searches (all rank 1), "needle" ranks 61 with 2; today "needle" 2 more (4 in all).
    await logs(
      needle,
      '2026-03-10T10:00:00Z',
      Array.from({ length: 60 }, (_, i) => [`tied ${i}`, 3, 0] as [string, number, number]),
    );
    await logs(needle, '2026-03-10T11:00:00Z', [['needle', 2, 0]]);
    await logs(needle, '2026-03-15T09:00:00Z', [['needle', 2, 0]]);
    tail = await program('top-queries-tail');
    // 11-13 March: each day 50 fresh queries with 2 searches lead; "tail" has 1 a day, 3 in all: the range's top.
    for (const day of ['11', '12', '13']) {
      await logs(tail, `2026-03-${day}T10:00:00Z`, [
        ...Array.from({ length: 50 }, (_, i) => [`d${day} q${i}`, 2] as [string, number]),
        ['tail', 1],
      ]);
    }
    expect((await rollUpSearchLogs(t.ctx)).to).toBe('2026-03-14');
  });

  it('rank a query below every day leader when its days add up to the top', async () => {
    const q = `from=2026-03-10&to=2026-03-15&batchId=${needle}&limit=10`;
    const search = (await get(`/analytics/search?${q}`)).json();
    expect(search.topQueries[0]).toEqual({ query: 'needle', searches: 4, zeroResults: 4 });
    expect(search.topQueries).toHaveLength(10);
    const insights = (await get(`/admin/search/insights?${q}`)).json();
    expect(insights.topQueries[0]).toEqual({ query: 'needle', searches: 4, zeroResults: 4 });
    expect(insights.zeroResultQueries[0]).toEqual({ query: 'needle', searches: 4, zeroResults: 4 });
  });

  it('equal the sum over every query of the range, for every range, limit and list', async () => {
    const days = ['2026-03-09', '2026-03-11', '2026-03-13', '2026-03-15'];
    for (const [i, from] of days.entries()) {
      for (const to of days.slice(i)) {
        const split = await splitSearchRange(t.ctx, resolveRange({ from, to }, clock.now()));
        for (const limit of [1, 3, 10, 50]) {
          for (const zeroOnly of [false, true]) {
            const all = await t.ctx.db.execute<{ query: string; searches: string; zero_results: string }>(
              allQueriesSql(split, mixed, limit, zeroOnly),
            );
            const expected = all.rows.map((r) => ({ query: r.query, searches: Number(r.searches), zeroResults: Number(r.zero_results) }));
            expect(await topQueries(t.ctx, split, mixed, limit, zeroOnly), `${from}..${to} ${limit} ${zeroOnly}`).toEqual(expected);
          }
        }
      }
    }
  });

  it('find a query that is never among a day leader nor live', async () => {
    const body = (await get(`/analytics/search?from=2026-03-11&to=2026-03-13&batchId=${tail}&limit=3`)).json();
    expect(body.topQueries).toEqual([
      { query: 'tail', searches: 3, zeroResults: 0 },
      { query: 'd11 q0', searches: 2, zeroResults: 0 },
      { query: 'd11 q1', searches: 2, zeroResults: 0 },
    ]);
  });
});

describe('comments of a deleted post', () => {
  it('never count, rolled or live, before and after the rollup recomputes the day', async () => {
    const prog = await program('deleted-post-comments');
    const [kept, gone] = await t.ctx.db
      .insert(communityPosts)
      .values([
        { batchId: prog, title: 'Kept', body: 'Body text', authorId: admin.id, createdAt: at('2026-03-05T09:00:00Z') },
        { batchId: prog, title: 'Gone', body: 'Body text', authorId: admin.id, createdAt: at('2026-03-05T09:00:00Z') },
      ])
      .returning({ id: communityPosts.id });
    await t.ctx.db.insert(comments).values([
      { postId: kept?.id as string, authorId: admin.id, body: 'kept', createdAt: at('2026-03-06T10:00:00Z') },
      { postId: gone?.id as string, authorId: admin.id, body: 'a', isAccepted: true, createdAt: at('2026-03-06T10:00:00Z') },
      { postId: gone?.id as string, authorId: admin.id, body: 'b', createdAt: at('2026-03-07T10:00:00Z') },
    ]);
    const q = `from=2026-03-01&to=2026-03-15&batchId=${prog}`;
    const counts = async () => {
      const community = (await get(`/admin/community?${q}`)).json();
      const growth = (await get(`/admin/community-growth?${q}`)).json();
      const activity = (await get(`/admin/user-activity?${q}`)).json();
      return {
        comments: community.comments,
        contributors: community.topContributors.map((c: { posts: number; comments: number }) => [c.posts, c.comments]),
        growth: growth.series.reduce((n: number, b: { comments: number }) => n + b.comments, 0),
        active: activity.totals.activeUsers,
      };
    };
    expect(await counts()).toEqual({ comments: { created: 3, accepted: 1 }, contributors: [[2, 3]], growth: 3, active: 1 });
    await rollUpCommunity(t.ctx);
    await t.ctx.db
      .update(communityPosts)
      .set({ deletedAt: at('2026-03-15T10:00:00Z') })
      .where(eq(communityPosts.id, gone?.id as string));
    const without = { comments: { created: 1, accepted: 0 }, contributors: [[1, 1]], growth: 1, active: 1 };
    expect(await counts()).toEqual(without); // the rolled days of its comments are read live
    await rollUpCommunity(t.ctx);
    expect(await counts()).toEqual(without); // and recomputed without them
  });
});

describe('time-stamped admin lists', () => {
  it('answer from after to with 400 naming query.from, as the dashboards do', async () => {
    for (const url of ['/admin/audit/stats', '/admin/audit/results', '/admin/escalation-history', '/admin/community/escalation-history']) {
      const body = expectProblem(await get(`${url}?from=2026-03-10&to=2026-03-01`), 400, 'VALIDATION_FAILED');
      expect(body.errors?.[0]?.path).toBe('query.from');
      expectProblem(await get(`${url}?from=2026-03-01T12:00:00Z&to=2026-03-01T11:59:59Z`), 400, 'VALIDATION_FAILED');
      expect((await get(`${url}?from=2026-03-01&to=2026-03-01`)).statusCode).toBe(200);
    }
  });
});
