import { fixedClock, HOUR_MS, rollUpSearchLogs } from '@cfaq/core';
import { batches, comments, communityPosts, searchLogs, unresolvedSearches, users } from '@cfaq/db/schema/index';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

type Who = { headers: { authorization: string }; id: string };
const clock = fixedClock('2026-03-15T12:00:00Z');
let t: TestApp;
let admin: Who;
let moderator: Who;
let user: Who;
let progB: string;
let progEmpty: string;
let defaultId: string;
const MISSING = '00000000-0000-4000-8000-000000000000';
const at = (iso: string) => new Date(iso);
const get = (url: string, who?: Who) => t.app.inject({ method: 'GET', url: `/api${url}`, headers: who?.headers ?? {} });

async function post(batchId: string, createdAt: string, extra: Partial<typeof communityPosts.$inferInsert> = {}) {
  const [row] = await t.ctx.db
    .insert(communityPosts)
    .values({ batchId, title: 'A question', body: 'Some body text', authorId: user.id, createdAt: at(createdAt), ...extra })
    .returning({ id: communityPosts.id });
  return row?.id as string;
}
const log = (batchId: string, createdAt: string, query: string, resultCount: number, extra: Partial<typeof searchLogs.$inferInsert> = {}) =>
  t.ctx.db.insert(searchLogs).values({ batchId, query, normalizedQuery: query, resultCount, createdAt: at(createdAt), ...extra });

beforeAll(async () => {
  t = await createTestApp({ clock, env: GENEROUS_LIMITS });
  [admin, moderator, user] = await Promise.all([t.signIn('admin'), t.signIn('moderator'), t.signIn('user')]);
  const [d] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
  defaultId = d?.id as string;
  const [b, e] = await t.ctx.db
    .insert(batches)
    .values([
      { name: 'Cohort B', slug: 'cohort-b-analytics' },
      { name: 'Cohort Empty', slug: 'cohort-empty-analytics' },
    ])
    .returning({ id: batches.id });
  progB = b?.id as string;
  progEmpty = e?.id as string;
  await t.ctx.db
    .update(users)
    .set({ createdAt: at('2026-03-02T08:00:00Z') })
    .where(eq(users.id, user.id));

  // Program B, 1-14 March: five live posts (one deleted aside), three answered after 2, 6 and 10 hours.
  const p1 = await post(progB, '2026-03-01T10:00:00Z', { status: 'answered', answeredAt: at('2026-03-01T12:00:00Z') });
  await post(progB, '2026-03-03T10:00:00Z', {
    status: 'answered',
    answeredAt: at('2026-03-03T16:00:00Z'),
    aiAnswerStatus: 'approved',
    aiAnswer: 'auto',
  });
  const p3 = await post(progB, '2026-03-03T11:00:00Z', { aiAnswerStatus: 'suggested', aiAnswer: 'maybe' });
  await post(progB, '2026-03-10T08:00:00Z', {
    status: 'answered',
    answeredAt: at('2026-03-10T18:00:00Z'),
    aiAnswerStatus: 'approved',
    aiAnswerReviewedAt: at('2026-03-10T18:00:00Z'),
  });
  await post(progB, '2026-03-10T09:00:00Z', { aiAnswerStatus: 'rejected', aiAnswerReviewedAt: at('2026-03-11T09:00:00Z') });
  await post(progB, '2026-03-04T09:00:00Z', { deletedAt: at('2026-03-05T09:00:00Z') });
  const other = await post(defaultId, '2026-03-05T09:00:00Z', { authorId: admin.id });
  await t.ctx.db.insert(comments).values([
    { postId: p1, authorId: moderator.id, body: 'answer', isAccepted: true, createdAt: at('2026-03-01T11:00:00Z') },
    { postId: p3, authorId: user.id, body: 'me too', createdAt: at('2026-03-03T12:00:00Z') },
    { postId: other, authorId: admin.id, body: 'elsewhere', createdAt: at('2026-03-05T10:00:00Z') },
  ]);

  // Searches in B: 8 within 1-14 March (3 found nothing, 4 from the cache), one today, one in the default program.
  await log(progB, '2026-03-02T09:00:00Z', 'visa', 0);
  await log(progB, '2026-03-02T09:05:00Z', 'visa', 2, { cacheHit: true, count: 4 });
  await log(progB, '2026-03-02T10:00:00Z', 'deadline', 1);
  await log(progB, '2026-03-14T23:59:00Z', 'visa', 0, { count: 2 });
  await log(progB, '2026-03-15T09:00:00Z', 'today query', 0);
  await log(defaultId, '2026-03-05T09:00:00Z', 'elsewhere', 3);
  await t.ctx.db.insert(unresolvedSearches).values([
    { batchId: progB, query: 'Visa', normalizedQuery: 'visa', count: 5, lastSeenAt: at('2026-03-14T10:00:00Z') },
    { batchId: progB, query: 'Parking', normalizedQuery: 'parking', count: 2, lastSeenAt: at('2026-03-12T10:00:00Z') },
    {
      batchId: progB,
      query: 'Old',
      normalizedQuery: 'old',
      status: 'resolved',
      resolvedAt: at('2026-03-05T10:00:00Z'),
    },
    { batchId: defaultId, query: 'Other', normalizedQuery: 'other', count: 9 },
  ]);
});
afterAll(async () => {
  await t.close();
});

const RANGE_B = () => `from=2026-03-01&to=2026-03-14&batchId=${progB}`;

describe('analytics access (admin or moderator)', () => {
  it.each(['/analytics/overview', '/analytics/search', '/analytics/community'])(
    '%s: anonymous 401, user 403, moderator and admin 200',
    async (path) => {
      expectProblem(await get(path), 401);
      expectProblem(await get(path, user), 403);
      expect((await get(path, moderator)).statusCode).toBe(200);
      expect((await get(path, admin)).statusCode).toBe(200);
    },
  );
});

describe('GET /analytics/community', () => {
  it('posts, answer rate, median time to first answer, auto-answer and approval rates, scoped to the program', async () => {
    const res = await get(`/analytics/community?${RANGE_B()}`, moderator);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      range: { from: '2026-03-01', to: '2026-03-14', interval: 'day' },
      batchId: progB,
      posts: 5,
      answered: 3,
      answerRate: 0.6,
      medianTimeToFirstAnswerHours: 6,
      autoAnswer: { attempted: 4, autoApproved: 1, autoAnswerRate: 0.2, reviewed: 2, approved: 1, approvalRate: 0.5 },
    });
    expect(body.series).toHaveLength(14);
    expect(body.series[0]).toEqual({ bucket: '2026-03-01', posts: 1, answered: 1 });
    expect(body.series[1]).toEqual({ bucket: '2026-03-02', posts: 0, answered: 0 });
    expect(body.series[2]).toEqual({ bucket: '2026-03-03', posts: 2, answered: 1 });
    expect(body.series[9]).toEqual({ bucket: '2026-03-10', posts: 2, answered: 1 });
    expect(body.series.reduce((a: number, b: { posts: number }) => a + b.posts, 0)).toBe(5);
  });

  it('weekly and monthly buckets start on Monday and on the 1st, partial edges included, gaps zero', async () => {
    const week = (await get(`/analytics/community?${RANGE_B()}&interval=week`, admin)).json();
    expect(week.series).toEqual([
      { bucket: '2026-02-23', posts: 1, answered: 1 },
      { bucket: '2026-03-02', posts: 2, answered: 1 },
      { bucket: '2026-03-09', posts: 2, answered: 1 },
    ]);
    const month = (await get(`/analytics/community?from=2026-01-15&to=2026-03-14&batchId=${progB}&interval=month`, admin)).json();
    expect(month.series).toEqual([
      { bucket: '2026-01-01', posts: 0, answered: 0 },
      { bucket: '2026-02-01', posts: 0, answered: 0 },
      { bucket: '2026-03-01', posts: 5, answered: 3 },
    ]);
  });

  it('all programs without batchId; an empty program gives zeros and null rates', async () => {
    const all = (await get('/analytics/community?from=2026-03-01&to=2026-03-14', admin)).json();
    expect(all).toMatchObject({ batchId: null, posts: 6, answered: 3 });
    const empty = (await get(`/analytics/community?from=2026-03-01&to=2026-03-14&batchId=${progEmpty}`, admin)).json();
    expect(empty).toMatchObject({
      posts: 0,
      answered: 0,
      answerRate: null,
      medianTimeToFirstAnswerHours: null,
      autoAnswer: { attempted: 0, autoAnswerRate: null, approvalRate: null },
    });
    expect(empty.series).toHaveLength(14);
    expect(empty.series.every((b: { posts: number }) => b.posts === 0)).toBe(true);
  });

  it('defaults to the 30 days up to today (UTC)', async () => {
    const body = (await get(`/analytics/community?batchId=${progB}`, admin)).json();
    expect(body.range).toEqual({ from: '2026-02-14', to: '2026-03-15', interval: 'day' });
    expect(body.series).toHaveLength(30);
  });
});

describe('range validation', () => {
  it('from after to, impossible dates, too long ranges and series answer 400 naming the field', async () => {
    const after = expectProblem(await get('/analytics/search?from=2026-03-10&to=2026-03-01', admin), 400);
    expect(after.errors?.[0]?.path).toBe('query.from');
    const feb30 = expectProblem(await get('/analytics/overview?from=2026-02-30', admin), 400);
    expect(JSON.stringify(feb30)).toContain('from');
    const bad = expectProblem(await get('/admin/faqs/growth?to=yesterday', admin), 400);
    expect(JSON.stringify(bad)).toContain('to');
    const long = expectProblem(await get('/analytics/overview?from=2020-01-01&to=2026-01-01', admin), 400);
    expect(long.errors?.[0]?.path).toBe('query.from');
    const daily = expectProblem(await get('/admin/community/chart?from=2025-01-01&to=2026-03-01&interval=day', admin), 400);
    expect(daily.errors?.[0]?.path).toBe('query.interval');
    expect((await get('/admin/community/chart?from=2025-01-01&to=2026-03-01&interval=week', admin)).statusCode).toBe(200);
    expectProblem(await get('/analytics/community?interval=hour', admin), 400);
    expectProblem(await get('/analytics/community?batchId=nope', admin), 400);
    expectProblem(await get(`/analytics/community?batchId=${MISSING}`, admin), 404, 'PROGRAM_NOT_FOUND');
  });
});

describe('GET /analytics/search', () => {
  const expected = {
    searches: 8,
    zeroResults: 3,
    zeroResultRate: 0.375,
    cacheHits: 4,
    cacheHitRate: 0.5,
    topQueries: [
      { query: 'visa', searches: 7, zeroResults: 3 },
      { query: 'deadline', searches: 1, zeroResults: 0 },
    ],
  };

  it('volume, zero-result and cache-hit rates, top queries and unresolved, from the log', async () => {
    const body = (await get(`/analytics/search?${RANGE_B()}`, moderator)).json();
    expect(body).toMatchObject(expected);
    expect(body.series[1]).toEqual({ bucket: '2026-03-02', searches: 6, zeroResults: 1, cacheHits: 4 });
    expect(body.series[13]).toEqual({ bucket: '2026-03-14', searches: 2, zeroResults: 2, cacheHits: 0 });
    expect(body.series[5]).toEqual({ bucket: '2026-03-06', searches: 0, zeroResults: 0, cacheHits: 0 });
    expect(body.unresolved).toMatchObject({ open: 2, resolved: 1 });
    expect(body.unresolved.top.map((u: { query: string }) => u.query)).toEqual(['Visa', 'Parking']);
  });

  it('the same answers once the worker has rolled the days up, and they outlive the raw log', async () => {
    const before = (await get(`/analytics/search?${RANGE_B()}`, admin)).json();
    const rolled = await rollUpSearchLogs(t.ctx);
    expect(rolled.to).toBe('2026-03-14');
    const after = (await get(`/analytics/search?${RANGE_B()}`, admin)).json();
    expect(after).toEqual(before);
    // Rolled days are read from the rollup: deleting their raw rows (retention) keeps the numbers,
    // also through another run (it never wipes a day whose rows are gone).
    await t.ctx.db.execute(sql`delete from search_logs where created_at < '2026-03-15'`);
    await rollUpSearchLogs(t.ctx);
    expect((await get(`/analytics/search?${RANGE_B()}`, admin)).json()).toEqual(before);
    // Today is always live: the range up to today adds today's row.
    const today = (await get(`/analytics/search?from=2026-03-01&to=2026-03-15&batchId=${progB}`, admin)).json();
    expect(today).toMatchObject({ searches: 9, zeroResults: 4 });
    expect(today.series[14]).toEqual({ bucket: '2026-03-15', searches: 1, zeroResults: 1, cacheHits: 0 });
    // A second run changes nothing.
    await rollUpSearchLogs(t.ctx);
    expect((await get(`/analytics/search?${RANGE_B()}`, admin)).json()).toEqual(before);
  });

  it('an empty program gives zeros, null rates and empty lists', async () => {
    const body = (await get(`/analytics/search?batchId=${progEmpty}&limit=5`, admin)).json();
    expect(body).toMatchObject({
      searches: 0,
      zeroResultRate: null,
      cacheHitRate: null,
      topQueries: [],
      unresolved: { open: 0, resolved: 0, top: [] },
    });
    expect(body.series).toHaveLength(30);
  });
});

describe('GET /analytics/overview', () => {
  it('headline numbers of the range, scoped to the program', async () => {
    const body = (await get(`/analytics/overview?${RANGE_B()}`, moderator)).json();
    expect(body).toMatchObject({
      batchId: progB,
      posts: { created: 5, answered: 3, answerRate: 0.6 },
      searches: { total: 8, zeroResultRate: 0.375, cacheHitRate: 0.5 },
      faqs: { created: 0, live: 0, needsReview: 0 },
      users: { new: 1, activeContributors: 2 },
      unresolvedOpen: 2,
    });
    const empty = (await get(`/analytics/overview?batchId=${progEmpty}`, admin)).json();
    expect(empty).toMatchObject({
      posts: { created: 0, answered: 0, answerRate: null },
      searches: { total: 0, zeroResultRate: null },
      users: { activeContributors: 0 },
      unresolvedOpen: 0,
    });
  });
});

describe('time to first answer', () => {
  it('is answeredAt - createdAt in hours, two decimals', async () => {
    const [c] = await t.ctx.db.insert(batches).values({ name: 'Cohort M', slug: 'cohort-m-analytics' }).returning({ id: batches.id });
    const start = Date.parse('2026-03-12T00:00:00Z');
    for (const h of [1, 2.5]) {
      await post(c?.id as string, new Date(start).toISOString(), { answeredAt: new Date(start + h * HOUR_MS) });
    }
    const body = (await get(`/analytics/community?batchId=${c?.id}`, admin)).json();
    expect(body.medianTimeToFirstAnswerHours).toBe(1.75);
  });
});
