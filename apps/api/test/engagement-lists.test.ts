import { awardPoints, notify, teaDrop } from '@cfaq/core';
import { batches, faqs } from '@cfaq/db/schema/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * Issue 18: "every list is paginated and program-scoped (reputation and badges are per program; the
 * user is not)". Each list named there pages (page, limit, total; bounds named on error) and each
 * program-scoped route reads one program: another program's rows stay out, an empty program answers
 * empty, an unknown one 404 PROGRAM_NOT_FOUND.
 */
let t: TestApp;
let progA: string;
let progEmpty: string;
let admin: Awaited<ReturnType<TestApp['signIn']>>;
let user: Awaited<ReturnType<TestApp['signIn']>>;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `/api${url}`, headers });

beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
  const rows = await t.ctx.db
    .insert(batches)
    .values([
      { name: 'Cohort Lists', slug: 'cohort-lists' },
      { name: 'Cohort Nothing', slug: 'cohort-nothing' },
    ])
    .returning({ id: batches.id });
  [progA, progEmpty] = rows.map((r) => r.id) as [string, string];
  [admin, user] = await Promise.all([t.signIn('admin'), t.signIn('user')]);
  const others = await Promise.all([1, 2, 3].map(() => t.signIn('user')));
  await t.ctx.db.transaction(async (tx) => {
    for (const [i, u] of [user, ...others].entries()) {
      await awardPoints(tx, { userId: u.id, batchId: progA, points: 10 + i, reason: 'x', sourceKey: `lists:${u.id}:1` });
      await awardPoints(tx, { userId: u.id, batchId: progA, points: 1, reason: 'y', sourceKey: `lists:${u.id}:2` });
    }
    for (let i = 0; i < 3; i++) {
      await notify(tx, { userId: user.id, kind: 'post_answered', title: `n${i}`, batchId: progA });
      await teaDrop(tx, { userId: user.id, batchId: progA, kind: 'faq_approved', title: `tea${i}` });
    }
  });
  await t.ctx.db.insert(faqs).values([1, 2, 3].map((i) => ({ batchId: progA, question: `Paged question ${i}?`, answer: 'Yes.' })));
});
afterAll(async () => {
  await t.close();
});

describe('lists named by issue 18', () => {
  it('page with page, limit and total, and refuse out-of-range bounds naming the field', async () => {
    const lists: [string, Record<string, string>, number][] = [
      [`/reputation/leaderboard?batchId=${progA}`, {}, 4],
      [`/reputation/history?batchId=${progA}`, user.headers, 2],
      [`/notifications?batchId=${progA}`, user.headers, 3],
      [`/notifications/tea?batchId=${progA}`, user.headers, 3],
      [`/tea/drops?batchId=${progA}`, user.headers, 3],
      [`/admin/faqs?batchId=${progA}`, admin.headers, 3],
    ];
    for (const [url, headers, total] of lists) {
      const page = await get(`${url}&page=2&limit=1`, headers);
      expect(page.statusCode, url).toBe(200);
      expect(page.json(), url).toMatchObject({ page: 2, limit: 1, total });
      expect(page.json().items, url).toHaveLength(1);
      const past = (await get(`${url}&page=99&limit=1`, headers)).json();
      expect(past, url).toMatchObject({ items: [], total });
      for (const bad of ['limit=0', 'limit=101', 'page=0']) {
        const problem = expectProblem(await get(`${url}&${bad}`, headers), 400);
        expect(JSON.stringify(problem.errors), `${url} ${bad}`).toContain(bad.split('=')[0] as string);
      }
    }
    // Leaderboard pages continue the ranks.
    const second = (await get(`/reputation/leaderboard?batchId=${progA}&page=2&limit=1`)).json();
    expect(second.items[0]).toMatchObject({ rank: 2, points: 13 });
  });

  it('read one program: empty for an empty program, 404 for an unknown one', async () => {
    const scoped: [string, Record<string, string>, (body: Record<string, unknown>) => void][] = [
      ['/reputation/leaderboard', {}, (b) => expect(b).toMatchObject({ items: [], total: 0 })],
      ['/reputation/history', user.headers, (b) => expect(b).toMatchObject({ items: [], total: 0 })],
      ['/reputation/me', user.headers, (b) => expect(b).toMatchObject({ points: 0, rank: null, totalReputation: 11 })],
      [`/reputation/user/${user.id}`, admin.headers, (b) => expect(b).toMatchObject({ points: 0, rank: null })],
      ['/notifications', user.headers, (b) => expect(b).toMatchObject({ items: [], total: 0 })],
      ['/notifications/tea', user.headers, (b) => expect(b).toMatchObject({ items: [], total: 0 })],
      ['/tea/drops', user.headers, (b) => expect(b).toMatchObject({ items: [], total: 0 })],
      ['/notifications/tea/unread-count', user.headers, (b) => expect(b).toMatchObject({ count: 0 })],
      ['/admin/faqs', admin.headers, (b) => expect(b).toMatchObject({ items: [], total: 0 })],
    ];
    for (const [url, headers, check] of scoped) {
      const empty = await get(`${url}?batchId=${progEmpty}`, headers);
      expect(empty.statusCode, url).toBe(200);
      check(empty.json());
      expectProblem(await get(`${url}?batchId=${UNKNOWN}`, headers), 404, 'PROGRAM_NOT_FOUND');
    }
    // The filled program, for contrast: the same user has points, a rank and drops there.
    expect((await get(`/reputation/me?batchId=${progA}`, user.headers)).json()).toMatchObject({ points: 11, rank: 4 });
    expect((await get(`/notifications/tea/unread-count?batchId=${progA}`, user.headers)).json()).toMatchObject({ count: 3 });
  });
});
