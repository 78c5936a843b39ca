import {
  activeUserCounts,
  compactCounts,
  fixedClock,
  medianAnswerHours,
  resolveRange,
  rollUpCommunity,
  rollUpSearchLogs,
  splitCommunityDays,
  topContributors,
} from '@cfaq/core';
import { batches, comments, communityPosts, faqs, searchLogs, unresolvedSearches, users } from '@cfaq/db/schema/index';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

type Who = { headers: { authorization: string }; id: string };
const clock = fixedClock('2026-03-15T12:00:00Z');
let t: TestApp;
let admin: Who;
let moderator: Who;
let user: Who;
let writer: Who;
let progB: string;
let progEmpty: string;
let defaultId: string;
const faqIds: Record<string, string> = {};
const MISSING = '00000000-0000-4000-8000-000000000000';
const at = (iso: string) => new Date(iso);
const get = (url: string, who?: Who) => t.app.inject({ method: 'GET', url: `/api${url}`, headers: who?.headers ?? {} });

const ROUTES = [
  '/admin/stats',
  '/admin/faqs',
  '/admin/faqs/growth',
  '/admin/community',
  '/admin/community/chart',
  '/admin/search/insights',
  '/admin/user-activity',
  '/admin/community-growth',
];

async function post(batchId: string, createdAt: string, extra: Partial<typeof communityPosts.$inferInsert> = {}) {
  const [row] = await t.ctx.db
    .insert(communityPosts)
    .values({ batchId, title: 'A question', body: 'Some body text', authorId: writer.id, createdAt: at(createdAt), ...extra })
    .returning({ id: communityPosts.id });
  return row?.id as string;
}
async function faq(key: string, values: Partial<typeof faqs.$inferInsert>) {
  const [row] = await t.ctx.db
    .insert(faqs)
    .values({ batchId: progB, question: `Question ${key}?`, answer: 'An answer.', ...values })
    .returning({ id: faqs.id });
  faqIds[key] = row?.id as string;
}

beforeAll(async () => {
  t = await createTestApp({ clock, env: GENEROUS_LIMITS });
  [admin, moderator, user, writer] = await Promise.all([t.signIn('admin'), t.signIn('moderator'), t.signIn('user'), t.signIn('user')]);
  const [d] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
  defaultId = d?.id as string;
  const [b, e] = await t.ctx.db
    .insert(batches)
    .values([
      { name: 'Cohort B', slug: 'cohort-b-dash' },
      { name: 'Cohort Empty', slug: 'cohort-empty-dash' },
    ])
    .returning({ id: batches.id });
  progB = b?.id as string;
  progEmpty = e?.id as string;
  // Accounts: two before the range, writer on 2 March, the rest created "now" in real time (after the range).
  await t.ctx.db
    .update(users)
    .set({ createdAt: at('2026-02-01T00:00:00Z') })
    .where(inArray(users.id, [admin.id, moderator.id]));
  await t.ctx.db
    .update(users)
    .set({ createdAt: at('2026-03-02T08:00:00Z') })
    .where(eq(users.id, writer.id));

  await post(progB, '2026-02-20T10:00:00Z');
  const p1 = await post(progB, '2026-03-01T10:00:00Z', { status: 'answered', answeredAt: at('2026-03-01T14:00:00Z') });
  const p2 = await post(progB, '2026-03-03T10:00:00Z', { escalationStatus: 'escalated', aiAnswerStatus: 'suggested' });
  await post(progB, '2026-03-10T10:00:00Z', { status: 'closed' });
  await post(progB, '2026-03-04T10:00:00Z', { deletedAt: at('2026-03-05T00:00:00Z') });
  const other = await post(defaultId, '2026-03-05T10:00:00Z', { authorId: admin.id });
  await t.ctx.db.insert(comments).values([
    { postId: p1, authorId: moderator.id, body: 'answer', isAccepted: true, createdAt: at('2026-03-01T12:00:00Z') },
    { postId: p2, authorId: moderator.id, body: 'hmm', createdAt: at('2026-03-03T12:00:00Z') },
    { postId: p2, authorId: writer.id, body: 'thanks', createdAt: at('2026-03-04T12:00:00Z') },
    { postId: other, authorId: admin.id, body: 'elsewhere', createdAt: at('2026-03-05T12:00:00Z') },
  ]);

  await faq('old', { createdAt: at('2026-02-01T00:00:00Z') });
  await faq('evergreen', { createdAt: at('2026-03-02T00:00:00Z'), source: 'suggestion' });
  await faq('due', {
    createdAt: at('2026-03-02T00:00:00Z'),
    freshnessTier: 'seasonal',
    reviewIntervalDays: 15,
    lastVerifiedDate: at('2026-01-01T00:00:00Z'),
  });
  await faq('pending', {
    createdAt: at('2026-03-09T00:00:00Z'),
    freshnessTier: 'volatile',
    reviewIntervalDays: 4,
    lastVerifiedDate: at('2026-03-14T00:00:00Z'),
    reviewStatus: 'pending_review',
    flagType: 'manual',
    flagReason: 'staff-only reason',
    source: 'community_post',
  });
  await t.ctx.db.insert(faqs).values({ batchId: defaultId, question: 'Elsewhere?', answer: 'Yes.', createdAt: at('2026-03-05T00:00:00Z') });

  await t.ctx.db.insert(searchLogs).values([
    {
      batchId: progB,
      query: 'visa',
      normalizedQuery: 'visa',
      resultCount: 0,
      count: 3,
      latencyMs: 10,
      createdAt: at('2026-03-02T09:00:00Z'),
    },
    {
      batchId: progB,
      query: 'grades',
      normalizedQuery: 'grades',
      resultCount: 2,
      count: 5,
      cacheHit: true,
      latencyMs: 2,
      createdAt: at('2026-03-12T09:00:00Z'),
    },
    {
      batchId: progB,
      query: 'wifi',
      normalizedQuery: 'wifi',
      resultCount: 0,
      degraded: true,
      latencyMs: 40,
      createdAt: at('2026-03-15T09:00:00Z'),
    },
    { batchId: defaultId, query: 'other', normalizedQuery: 'other', resultCount: 1, createdAt: at('2026-03-15T09:00:00Z') },
  ]);
  await t.ctx.db.insert(unresolvedSearches).values([
    { batchId: progB, query: 'Visa', normalizedQuery: 'visa', count: 3 },
    { batchId: defaultId, query: 'Other', normalizedQuery: 'other' },
  ]);
});
afterAll(async () => {
  await t.close();
});

const RANGE_B = () => `from=2026-03-01&to=2026-03-14&batchId=${progB}`;

describe('admin dashboards access (admin only)', () => {
  it.each(ROUTES)('%s: anonymous 401, user and moderator 403, admin 200', async (path) => {
    expectProblem(await get(path), 401);
    expectProblem(await get(path, user), 403);
    expectProblem(await get(path, moderator), 403);
    expect((await get(path, admin)).statusCode).toBe(200);
  });

  it.each(ROUTES)('%s: an unknown program is 404, a malformed one 400', async (path) => {
    expectProblem(await get(`${path}?batchId=${MISSING}`, admin), 404, 'PROGRAM_NOT_FOUND');
    expectProblem(await get(`${path}?batchId=x`, admin), 400);
  });
});

describe('GET /admin/stats', () => {
  it('the state now, per program and across programs', async () => {
    const b = (await get(`/admin/stats?batchId=${progB}`, admin)).json();
    expect(b).toMatchObject({
      batchId: progB,
      faqs: { total: 4, byReviewStatus: { approved: 3, pending_review: 1, draft: 0, verified: 0, update_requested: 0 } },
      posts: { total: 4, byStatus: { open: 2, answered: 1, pending: 0, closed: 1 }, escalated: 1, aiAwaitingReview: 1 },
      searches: { today: 1, last7Days: 6, last30Days: 9 },
      unresolvedOpen: 1,
    });
    expect(b.users.total).toBeGreaterThanOrEqual(4);
    const all = (await get('/admin/stats', admin)).json();
    expect(all).toMatchObject({ batchId: null, faqs: { total: 5 }, posts: { total: 5 }, searches: { today: 2 }, unresolvedOpen: 2 });
    const empty = (await get(`/admin/stats?batchId=${progEmpty}`, admin)).json();
    expect(empty).toMatchObject({
      faqs: { total: 0 },
      posts: { total: 0, escalated: 0 },
      searches: { today: 0, last30Days: 0 },
      unresolvedOpen: 0,
    });
  });

  it("leaves a deleted program's content out of the all-programs totals, as every read does", async () => {
    const made = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Soon gone' } });
    const gone = made.json().id as string;
    await t.ctx.db.insert(faqs).values({ batchId: gone, question: 'Gone with its program?', answer: 'Yes.' });
    const before = (await get('/admin/stats', admin)).json().faqs.total as number;
    expect((await t.app.inject({ method: 'DELETE', url: `/api/batches/${gone}`, headers: admin.headers })).statusCode).toBe(204);
    expect((await get('/admin/stats', admin)).json().faqs.total).toBe(before - 1);
    expect((await get('/admin/faqs?limit=100', admin)).json().total).toBe(before - 1);
  });
});

describe('GET /admin/stats users (kept counts)', () => {
  const counted = async () => {
    const r = await t.ctx.db.execute<{ total: number; admins: number; moderators: number; suspended: number }>(sql`
      select count(*)::int as total, (count(*) filter (where role = 'admin'))::int as admins,
        (count(*) filter (where role = 'moderator'))::int as moderators, (count(*) filter (where status = 'suspended'))::int as suspended
      from users`);
    return r.rows[0];
  };
  const shown = async () => (await get('/admin/stats', admin)).json().users;

  it('equal a count of the accounts through signups, role and status changes, deletions and the fold', async () => {
    expect(await shown()).toEqual(await counted());
    const made = await Promise.all(Array.from({ length: 6 }, () => t.signIn('user')));
    const ids = made.map((m) => m.id);
    await t.ctx.db
      .update(users)
      .set({ role: 'moderator' })
      .where(inArray(users.id, ids.slice(0, 2)));
    await t.ctx.db
      .update(users)
      .set({ status: 'suspended' })
      .where(inArray(users.id, ids.slice(1, 4)));
    await t.ctx.db.update(users).set({ name: 'Renamed' }).where(inArray(users.id, ids));
    await t.ctx.db.delete(users).where(eq(users.id, ids[3] as string));
    const now = await counted();
    expect(now).toMatchObject({ moderators: expect.any(Number), suspended: expect.any(Number) });
    expect(now?.suspended).toBeGreaterThanOrEqual(2);
    expect(await shown()).toEqual(now);
    const folded = await compactCounts(t.ctx);
    expect(folded.users).toBeGreaterThan(3);
    expect(await shown()).toEqual(now);
    const rows = await t.ctx.db.execute<{ n: number }>(sql`select count(*)::int as n from user_counts`);
    expect(rows.rows[0]?.n).toBeLessThanOrEqual(6);
    // A suspension that has ended no longer counts, though the row still says suspended.
    const ended = new Date(t.ctx.clock.now().getTime() - 60_000);
    await t.ctx.db
      .update(users)
      .set({ suspendedUntil: ended })
      .where(eq(users.id, ids[1] as string));
    expect((await shown()).suspended).toBe((now?.suspended ?? 0) - 1);
  });
});

describe('GET /admin/faqs', () => {
  const ids = (body: { items: { id: string }[] }) => body.items.map((i) => i.id).sort();

  it('every review status with flag reasons, filtered by review status and freshness', async () => {
    const all = (await get(`/admin/faqs?batchId=${progB}`, admin)).json();
    expect(all).toMatchObject({ total: 4, page: 1, limit: 20 });
    const pending = (await get(`/admin/faqs?batchId=${progB}&reviewStatus=pending_review`, admin)).json();
    expect(pending.items).toHaveLength(1);
    expect(pending.items[0]).toMatchObject({
      id: faqIds.pending,
      flagReason: 'staff-only reason',
      due: false,
      reviewDueAt: '2026-03-18T00:00:00.000Z',
    });
    const due = (await get(`/admin/faqs?batchId=${progB}&freshness=due`, admin)).json();
    expect(due.items).toEqual([expect.objectContaining({ id: faqIds.due, due: true, reviewDueAt: '2026-01-16T00:00:00.000Z' })]);
    const fresh = (await get(`/admin/faqs?batchId=${progB}&freshness=fresh`, admin)).json();
    expect(ids(fresh)).toEqual([faqIds.old, faqIds.evergreen, faqIds.pending].sort());
    expect(fresh.items.find((i: { id: string }) => i.id === faqIds.evergreen)).toMatchObject({ reviewDueAt: null, due: false });
    const tier = (await get(`/admin/faqs?batchId=${progB}&freshnessTier=volatile&flagType=manual`, admin)).json();
    expect(ids(tier)).toEqual([faqIds.pending]);
    const sorted = (await get(`/admin/faqs?batchId=${progB}&sort=reviewDue&limit=2`, admin)).json();
    expect(sorted.items.map((i: { id: string }) => i.id)).toEqual([faqIds.due, faqIds.pending]);
    expect(sorted.total).toBe(4);
    expect((await get('/admin/faqs', admin)).json().total).toBe(5);
    expect((await get(`/admin/faqs?batchId=${progEmpty}`, admin)).json()).toEqual({ items: [], total: 0, page: 1, limit: 20 });
    expectProblem(await get('/admin/faqs?freshness=stale', admin), 400);
    expectProblem(await get('/admin/faqs?reviewStatus=gone', admin), 400);
  });
});

describe('GET /admin/faqs/growth', () => {
  it('created per bucket with a running total from before the range, gaps zero', async () => {
    const body = (await get(`/admin/faqs/growth?${RANGE_B()}&interval=week`, admin)).json();
    expect(body).toMatchObject({
      before: 1,
      created: 3,
      bySource: { manual: 1, suggestion: 1, community_post: 1, conf_insight: 0, transcript_knowledge: 0 },
    });
    expect(body.series).toEqual([
      { bucket: '2026-02-23', created: 0, cumulative: 1 },
      { bucket: '2026-03-02', created: 2, cumulative: 3 },
      { bucket: '2026-03-09', created: 1, cumulative: 4 },
    ]);
    const empty = (await get(`/admin/faqs/growth?batchId=${progEmpty}&interval=month`, admin)).json();
    expect(empty).toMatchObject({ before: 0, created: 0 });
    expect(empty.series).toEqual([
      { bucket: '2026-02-01', created: 0, cumulative: 0 },
      { bucket: '2026-03-01', created: 0, cumulative: 0 },
    ]);
  });
});

describe('GET /admin/community', () => {
  it("the range's posts by status, comments, top contributors, scoped", async () => {
    const body = (await get(`/admin/community?${RANGE_B()}`, admin)).json();
    expect(body).toMatchObject({
      posts: {
        created: 3,
        byStatus: { open: 1, answered: 1, pending: 0, closed: 1 },
        escalated: 1,
        answerRate: 0.3333,
        medianTimeToFirstAnswerHours: 4,
      },
      comments: { created: 3, accepted: 1 },
    });
    expect(body.topContributors).toEqual([
      { userId: writer.id, name: 'Test User', posts: 3, comments: 1 },
      { userId: moderator.id, name: 'Test User', posts: 0, comments: 2 },
    ]);
    const empty = (await get(`/admin/community?batchId=${progEmpty}`, admin)).json();
    expect(empty).toMatchObject({
      posts: { created: 0, answerRate: null, medianTimeToFirstAnswerHours: null },
      comments: { created: 0 },
      topContributors: [],
    });
  });
});

describe('GET /admin/community/chart and /admin/community-growth', () => {
  it('posts, comments and answered per day, gaps zero', async () => {
    const body = (await get(`/admin/community/chart?${RANGE_B()}`, admin)).json();
    expect(body.series).toHaveLength(14);
    expect(body.series.slice(0, 5)).toEqual([
      { bucket: '2026-03-01', posts: 1, comments: 1, answered: 1 },
      { bucket: '2026-03-02', posts: 0, comments: 0, answered: 0 },
      { bucket: '2026-03-03', posts: 1, comments: 1, answered: 0 },
      { bucket: '2026-03-04', posts: 0, comments: 1, answered: 0 },
      { bucket: '2026-03-05', posts: 0, comments: 0, answered: 0 },
    ]);
    const all = (await get('/admin/community/chart?from=2026-03-05&to=2026-03-05', admin)).json();
    expect(all.series).toEqual([{ bucket: '2026-03-05', posts: 1, comments: 1, answered: 0 }]);
  });

  it('growth: new posts, comments and members with running totals', async () => {
    const body = (await get(`/admin/community-growth?${RANGE_B()}&interval=week`, admin)).json();
    expect(body.before).toEqual({ posts: 1, comments: 0, members: 2 });
    expect(body.series).toEqual([
      { bucket: '2026-02-23', posts: 1, comments: 1, members: 0, cumulativePosts: 2, cumulativeComments: 1, cumulativeMembers: 2 },
      { bucket: '2026-03-02', posts: 1, comments: 2, members: 1, cumulativePosts: 3, cumulativeComments: 3, cumulativeMembers: 3 },
      { bucket: '2026-03-09', posts: 1, comments: 0, members: 0, cumulativePosts: 4, cumulativeComments: 3, cumulativeMembers: 3 },
    ]);
    // A later range starts from the totals before it: the comments of live posts written earlier.
    const later = (await get('/admin/community-growth?from=2026-03-09&to=2026-03-15&interval=week', admin)).json();
    const { rows } = await t.ctx.pool.query<{ n: number }>(
      `select count(*)::int as n from comments c join community_posts p on p.id = c.post_id
       where c.deleted_at is null and p.deleted_at is null and c.created_at < '2026-03-09'`,
    );
    expect(rows[0]?.n).toBeGreaterThan(0);
    expect(later.before.comments).toBe(rows[0]?.n);
    expect(later.series[0].cumulativeComments).toBe((rows[0]?.n ?? 0) + later.series[0].comments);
  });
});

describe('GET /admin/user-activity', () => {
  it('new accounts and distinct active authors per bucket', async () => {
    const body = (await get(`/admin/user-activity?${RANGE_B()}&interval=week`, admin)).json();
    expect(body.totals).toEqual({ newUsers: 1, activeUsers: 2 });
    expect(body.series).toEqual([
      { bucket: '2026-02-23', newUsers: 0, activeUsers: 2 },
      { bucket: '2026-03-02', newUsers: 1, activeUsers: 2 },
      { bucket: '2026-03-09', newUsers: 0, activeUsers: 1 },
    ]);
    const empty = (await get(`/admin/user-activity?batchId=${progEmpty}&from=2026-03-01&to=2026-03-14`, admin)).json();
    expect(empty.totals).toEqual({ newUsers: 1, activeUsers: 0 });
  });
});

describe('GET /admin/search/insights', () => {
  it('top and zero-result queries, unresolved, rates and latency; the rollup gives the same', async () => {
    const url = `/admin/search/insights?from=2026-03-01&to=2026-03-15&batchId=${progB}`;
    const body = (await get(url, admin)).json();
    expect(body).toMatchObject({
      searches: 9,
      zeroResultRate: 0.4444,
      cacheHitRate: 0.5556,
      degradedRate: 0.1111,
      avgLatencyMs: 8.9,
      topQueries: [
        { query: 'grades', searches: 5, zeroResults: 0 },
        { query: 'visa', searches: 3, zeroResults: 3 },
        { query: 'wifi', searches: 1, zeroResults: 1 },
      ],
      zeroResultQueries: [
        { query: 'visa', searches: 3, zeroResults: 3 },
        { query: 'wifi', searches: 1, zeroResults: 1 },
      ],
      unresolved: { open: 1, resolved: 0 },
    });
    await rollUpSearchLogs(t.ctx);
    expect((await get(url, admin)).json()).toEqual(body);
    const empty = (await get(`/admin/search/insights?batchId=${progEmpty}`, admin)).json();
    expect(empty).toMatchObject({ searches: 0, zeroResultRate: null, avgLatencyMs: null, topQueries: [], zeroResultQueries: [] });
  });
});

describe('community rollup (analytics.rollup)', () => {
  const URLS = () => [
    `/admin/community?${RANGE_B()}`,
    `/admin/community/chart?${RANGE_B()}`,
    `/admin/community-growth?${RANGE_B()}&interval=week`,
    `/admin/user-activity?${RANGE_B()}&interval=week`,
    '/admin/community?from=2026-02-01&to=2026-03-15',
    '/admin/community/chart?from=2026-02-01&to=2026-03-15&interval=month',
    '/admin/user-activity?from=2026-02-01&to=2026-03-15&interval=month',
    '/admin/community-growth?from=2026-03-01&to=2026-03-15',
    // Ranges and buckets that start between a user's active days (first buckets clipped to the range).
    '/admin/user-activity?from=2026-03-03&to=2026-03-15&interval=week',
    `/admin/user-activity?from=2026-03-02&to=2026-03-15&interval=day&batchId=${progB}`,
    `/admin/user-activity?from=2026-03-02&to=2026-03-15&interval=day&batchId=${defaultId}`,
    '/admin/user-activity?from=2026-03-04&to=2026-03-06&interval=day',
    '/analytics/overview?from=2026-03-04&to=2026-03-14',
    `/analytics/overview?${RANGE_B()}`,
    '/analytics/overview?from=2026-02-01&to=2026-03-15',
    `/analytics/community?${RANGE_B()}&interval=week`,
    '/admin/stats',
    `/admin/stats?batchId=${progB}`,
  ];
  const answers = () => Promise.all(URLS().map(async (u) => (await get(u, admin)).json()));
  /** The same requests with the rollup switched off: every day read from the raw tables. */
  async function rawAnswers() {
    const [state] = (
      await t.ctx.db.execute<{ d: string }>(sql`select rolled_through::text as d from analytics_rollups where name = 'community'`)
    ).rows;
    await t.ctx.db.execute(sql`delete from analytics_rollups where name = 'community'`);
    try {
      return await answers();
    } finally {
      if (state) await t.ctx.db.execute(sql`insert into analytics_rollups (name, rolled_through) values ('community', ${state.d}::date)`);
    }
  }
  const dirtyRolledDays = async () =>
    (await t.ctx.db.execute<{ n: number }>(sql`select count(*)::int as n from analytics_dirty_days where day <= '2026-03-14'`)).rows[0]?.n;

  it('answers exactly as the raw tables, and stays exact while writes change rolled days until the worker recomputes them', async () => {
    const before = await answers();
    expect(await rawAnswers()).toEqual(before);
    const first = await rollUpCommunity(t.ctx);
    expect(first).toMatchObject({ to: '2026-03-14' });
    expect(await dirtyRolledDays()).toBe(0);
    const rolled = await t.ctx.db.execute<{ n: number }>(sql`select count(*)::int as n from community_daily_stats`);
    expect(rolled.rows[0]?.n).toBeGreaterThan(0);
    expect(await answers()).toEqual(before);

    // Writes to rolled days: a post deleted, another moved to another program, a comment accepted,
    // a backdated post and comment, an account removed (its posts lose their author).
    const [p2] = await t.ctx.db
      .select({ id: communityPosts.id })
      .from(communityPosts)
      .where(eq(communityPosts.createdAt, at('2026-03-03T10:00:00Z')));
    await t.ctx.db
      .update(communityPosts)
      .set({ deletedAt: at('2026-03-15T10:00:00Z') })
      .where(eq(communityPosts.id, p2!.id));
    await t.ctx.db
      .update(communityPosts)
      .set({ batchId: defaultId })
      .where(eq(communityPosts.createdAt, at('2026-03-10T10:00:00Z')));
    await t.ctx.db
      .update(comments)
      .set({ isAccepted: true })
      .where(and(eq(comments.authorId, writer.id), eq(comments.createdAt, at('2026-03-04T12:00:00Z'))));
    const added = await post(progB, '2026-03-02T18:00:00Z', {
      authorId: user.id,
      status: 'answered',
      answeredAt: at('2026-03-03T00:00:00Z'),
    });
    await t.ctx.db.insert(comments).values({ postId: added, authorId: admin.id, body: 'late', createdAt: at('2026-03-06T09:00:00Z') });
    const gone = await t.signIn('user');
    await t.ctx.db
      .update(users)
      .set({ createdAt: at('2026-03-07T09:00:00Z') })
      .where(eq(users.id, gone.id));
    await post(progB, '2026-03-07T10:00:00Z', { authorId: gone.id });
    await t.ctx.db.delete(users).where(eq(users.id, gone.id));

    const changed = await answers();
    expect(changed).not.toEqual(before);
    expect(await dirtyRolledDays()).toBeGreaterThan(0);
    expect(await rawAnswers()).toEqual(changed);

    const second = await rollUpCommunity(t.ctx);
    expect(second.dirty).toBeGreaterThan(0);
    expect(await dirtyRolledDays()).toBe(0);
    expect(await answers()).toEqual(changed);
    // Nothing to do the next time.
    expect(await rollUpCommunity(t.ctx)).toMatchObject({ days: 0, dirty: 0 });
  });
});

describe('distinct active users (user_active_days)', () => {
  const DAYS = Array.from({ length: 20 }, (_, i) =>
    new Date(Date.parse('2026-02-24T00:00:00Z') + i * 86_400_000).toISOString().slice(0, 10),
  );
  /** The raw answer: distinct authors of posts and comments per bucket of from..to (program by the post's; a deleted post's comments never count). */
  async function raw(from: string, to: string, batchId: string | null, interval: 'day' | 'week' | 'month' | null) {
    const bucket = interval ? sql.raw(`date_trunc('${interval}', day::timestamp)::date`) : sql`${from}::date`;
    // Every program but the deleted ones when none is given.
    const prog = (col: string) =>
      batchId
        ? sql` and ${sql.raw(col)} = ${batchId}::uuid`
        : sql` and ${sql.raw(col)} not in (select id from batches where deleted_at is not null)`;
    const res = await t.ctx.db.execute<{ bucket: string; n: number }>(sql`
      select to_char(${bucket}, 'YYYY-MM-DD') as bucket, count(distinct user_id)::int as n from (
        select (p.created_at at time zone 'UTC')::date as day, p.author_id as user_id from community_posts p
          where p.deleted_at is null and p.author_id is not null${prog('p.batch_id')}
        union all
        select (c.created_at at time zone 'UTC')::date, c.author_id from comments c join community_posts p on p.id = c.post_id
          where c.deleted_at is null and p.deleted_at is null and c.author_id is not null${prog('p.batch_id')}
      ) a where day between ${from}::date and ${to}::date group by 1 order by 1`);
    return Object.fromEntries(res.rows.map((r) => [r.bucket, r.n]));
  }
  async function counted(from: string, to: string, batchId: string | null, interval: 'day' | 'week' | 'month' | null) {
    const split = await splitCommunityDays(t.ctx, from, to);
    const res = await t.ctx.db.execute<{ bucket: string; n: number }>(sql`
      select to_char(bucket, 'YYYY-MM-DD') as bucket, sum(n)::int as n from (${activeUserCounts(split, batchId, from, interval)}) x
      group by 1 having sum(n) <> 0 order by 1`);
    return Object.fromEntries(res.rows.map((r) => [r.bucket, r.n]));
  }
  /** Top contributors by the bounded walk (forced: any range, 1-2 users a step) against the direct sum. */
  async function compareTop(label: string) {
    for (const batchId of [null, progB, defaultId]) {
      for (const [from, to] of [
        ['2026-02-24', '2026-03-15'],
        ['2026-03-01', '2026-03-10'],
        ['2026-03-03', '2026-03-04'],
      ] as const) {
        const split = await splitCommunityDays(t.ctx, from, to);
        for (const limit of [1, 3, 10]) {
          const direct = await topContributors(t.ctx, split, batchId, 0, limit);
          for (const step of [1, 3]) {
            const walked = await topContributors(t.ctx, split, batchId, 0, limit, { minDays: 0, step, steps: 1000 });
            expect(walked, `${label} ${from}..${to} ${batchId} top ${limit} step ${step}`).toEqual(direct);
          }
        }
      }
    }
  }
  /** The median time to first answer (buckets and one bucket's posts) against percentile_cont over every post. */
  async function compareMedian(label: string) {
    for (const batchId of [null, progB, defaultId]) {
      for (let i = 0; i < DAYS.length; i += 4) {
        for (let j = i; j < DAYS.length; j += 5) {
          const [from, to] = [DAYS[i] as string, DAYS[j] as string];
          const prog = batchId ? sql` and batch_id = ${batchId}::uuid` : sql``;
          const direct = await t.ctx.db.execute<{ m: number | null }>(sql`
            select round((percentile_cont(0.5) within group (order by extract(epoch from answered_at - created_at)) / 3600)::numeric, 2)::float8 as m
            from community_posts where answered_at is not null and deleted_at is null${prog}
              and created_at >= ${from}::date and created_at < ${to}::date + 1`);
          const scope = { batchId, range: resolveRange({ from, to }, clock.now()) };
          const m = await medianAnswerHours(t.ctx, scope, await splitCommunityDays(t.ctx, from, to));
          expect(m, `${label} median ${from}..${to} ${batchId}`).toBe(direct.rows[0]?.m ?? null);
        }
      }
    }
  }
  async function compareAll(label: string) {
    await compareMedian(label);
    await compareTop(label);
    for (const batchId of [null, progB, defaultId]) {
      for (const interval of [null, 'day', 'week', 'month'] as const) {
        for (let i = 0; i < DAYS.length; i += 3) {
          for (let j = i; j < DAYS.length; j += 4) {
            const [from, to] = [DAYS[i] as string, DAYS[j] as string];
            expect(await counted(from, to, batchId, interval), `${label} ${from}..${to} ${batchId} ${interval}`).toEqual(
              await raw(from, to, batchId, interval),
            );
          }
        }
      }
    }
  }
  /** Every row links to the user's previous active day in its scope, and the rows are the rollup's active days. */
  async function linksExact() {
    const res = await t.ctx.db.execute<{ bad: number; missing: number }>(sql`
      select (select count(*)::int from user_active_days a where a.prev_day is distinct from
          (select max(b.day) from user_active_days b where b.scope = a.scope and b.user_id = a.user_id and b.day < a.day)) as bad,
        (select count(*)::int from (
          select '00000000-0000-0000-0000-000000000000'::uuid as scope, user_id, day from user_daily_activity
            where batch_id not in (select id from batches where deleted_at is not null)
          union select batch_id, user_id, day from user_daily_activity where batch_id is not null
          except select scope, user_id, day from user_active_days) m) as missing,
        (select count(*)::int from user_active_days a where a.scope = '00000000-0000-0000-0000-000000000000'::uuid
          and not exists (select 1 from user_daily_activity u where u.user_id = a.user_id and u.day = a.day
            and u.batch_id not in (select id from batches where deleted_at is not null))) as extra`);
    expect(res.rows[0]).toEqual({ bad: 0, missing: 0, extra: 0 });
    // user_activity_totals: each user's rolled rows summed, per program and for all.
    const totals = await t.ctx.db.execute<{ off: number }>(sql`
      select count(*)::int as off from (
        (select scope, user_id, total from user_activity_totals
          except select '00000000-0000-0000-0000-000000000000'::uuid, user_id, sum(posts + comments)::int from user_daily_activity group by 2
          except select batch_id, user_id, sum(posts + comments)::int from user_daily_activity where batch_id is not null group by 1, 2)
        union all
        (select '00000000-0000-0000-0000-000000000000'::uuid, user_id, sum(posts + comments)::int from user_daily_activity group by 2
          union all select batch_id, user_id, sum(posts + comments)::int from user_daily_activity where batch_id is not null group by 1, 2
          except select scope, user_id, total from user_activity_totals)) d`);
    expect(totals.rows[0]?.off).toBe(0);
  }

  it('equal the raw distinct count for every range, bucket and program, before and after writes and rollups', async () => {
    const people = await Promise.all([1, 2, 3, 4, 5].map(() => t.signIn('user')));
    const made: string[] = [];
    // Deterministic spread: person k writes on days k, k+3, k+7, ... in two programs.
    for (const [k, who] of people.entries()) {
      for (let d = k; d < 18; d += 3 + (k % 3)) {
        const day = DAYS[d] as string;
        // Answered after seconds to days (some not at all), so the median crosses answer-time buckets.
        const answeredAt = d % 5 === 4 ? null : new Date(Date.parse(`${day}T0${k}:00:00Z`) + 1000 * 7 ** ((d + k) % 7) + 17 * d);
        made.push(await post(d % 2 === 0 ? progB : defaultId, `${day}T0${k}:00:00Z`, { authorId: who.id, answeredAt }));
      }
    }
    await t.ctx.db.insert(comments).values(
      made.map((postId, i) => ({
        postId,
        authorId: (people[(i * 2) % 5] as Who).id,
        body: 'reply',
        createdAt: at(`${DAYS[Math.min(19, (i * 7) % 20)]}T10:00:00Z`),
      })),
    );
    // A program whose days are rolled before it is deleted; one of its writers is active nowhere else.
    const closing = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Closing soon' } });
    const progC = closing.json().id as string;
    const solo = await t.signIn('user');
    const cPost = await post(progC, `${DAYS[4]}T09:00:00Z`, { authorId: solo.id });
    await post(progC, `${DAYS[9]}T09:00:00Z`, { authorId: (people[0] as Who).id });
    await t.ctx.db.insert(comments).values({ postId: cPost, authorId: solo.id, body: 'me again', createdAt: at(`${DAYS[12]}T09:00:00Z`) });
    await compareAll('live');
    await rollUpCommunity(t.ctx);
    await linksExact();
    await compareAll('rolled');
    // Deleted: every all-programs count leaves it out at once (its days read live) and after the next rollup.
    expect((await t.app.inject({ method: 'DELETE', url: `/api/batches/${progC}`, headers: admin.headers })).statusCode).toBe(204);
    expect(await counted(DAYS[12] as string, DAYS[12] as string, null, null)).toEqual(
      await raw(DAYS[12] as string, DAYS[12] as string, null, null),
    );
    await compareAll('program deleted');
    await rollUpCommunity(t.ctx);
    await linksExact();
    await compareAll('program deleted, rolled');
    // Writes to rolled days: some posts deleted (a user's only day in a bucket among them), one moved,
    // a backdated one by a user active nowhere else, a comment deleted.
    await t.ctx.db
      .update(communityPosts)
      .set({ deletedAt: at('2026-03-15T10:00:00Z') })
      .where(
        inArray(
          communityPosts.id,
          made.filter((_, i) => i % 4 === 1),
        ),
      );
    await t.ctx.db
      .update(communityPosts)
      .set({ batchId: progB })
      .where(eq(communityPosts.id, made[2] as string));
    const late = await t.signIn('user');
    await post(defaultId, '2026-03-04T22:00:00Z', { authorId: late.id });
    await t.ctx.db
      .update(comments)
      .set({ deletedAt: at('2026-03-15T11:00:00Z') })
      .where(eq(comments.postId, made[5] as string));
    // An answer time changed on a rolled day (its bucket moves).
    await t.ctx.db
      .update(communityPosts)
      .set({ answeredAt: at('2026-03-14T23:00:00Z') })
      .where(eq(communityPosts.id, made[3] as string));
    await compareAll('dirty');
    await rollUpCommunity(t.ctx);
    await linksExact();
    await compareAll('rolled again');
  }, 120_000);
});
