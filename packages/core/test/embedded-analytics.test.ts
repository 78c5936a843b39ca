import { createEmbeddedTestContext } from '@cfaq/testkit';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeUserCounts } from '../src/analytics/active-users.js';
import { adminStats } from '../src/analytics/admin-stats.js';
import { communityTotals, medianAnswerHours } from '../src/analytics/community.js';
import { rollUpCommunity, splitCommunityDays } from '../src/analytics/community-rollup.js';
import { compactCounts } from '../src/analytics/counts.js';
import { resolveRange } from '../src/analytics/range.js';
import { topContributors } from '../src/analytics/top-contributors.js';
import type { CoreContext } from '../src/context.js';
import { awardPoints } from '../src/reputation/awards.js';
import { reputationSummary } from '../src/reputation/service.js';
import { fixedClock } from '../src/runtime/clock.js';

/**
 * The kept structures of migrations 0027-0028 on the embedded database (PGlite): the rollup's active
 * days with their previous-day links, the statement triggers with transition tables and the folds.
 */
let ctx: CoreContext;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ctx, close } = await createEmbeddedTestContext({ clock: fixedClock('2026-03-15T12:00:00Z') }));
}, 180_000);
afterAll(async () => {
  await close?.();
});

const one = async <T>(q: ReturnType<typeof sql>) => (await ctx.db.execute<T & Record<string, unknown>>(q)).rows[0] as T;

describe('analytics kept structures on PGlite', () => {
  it('active users, account counts and point counts equal their raw counts', async () => {
    const { id: prog } = await one<{ id: string }>(sql`select id from batches where is_default`);
    await ctx.db.execute(sql`insert into users (email, password_hash, name, role, status)
      select 'pg' || g || '@example.test', 'x', 'U' || g, (case when g % 4 = 0 then 'moderator' else 'user' end)::user_role,
        (case when g % 5 = 0 then 'suspended' else 'active' end)::user_status from generate_series(1, 12) g`);
    await ctx.db.execute(sql`insert into community_posts (batch_id, author_id, title, body, created_at, answered_at)
      select ${prog}::uuid, u.id, 'Q', 'Body', c, case when g = 1 then c + (n * n * 97) * interval '1 second' end
      from (select u.id, g, row_number() over (order by u.id, g) as n,
        timestamptz '2026-03-01 10:00Z' + ((row_number() over (order by u.id)) * 37 % 13) * interval '1 day' as c
        from users u, generate_series(1, 2) g where u.email like 'pg%') u`);
    const median = async (from: string, to: string) => {
      const direct = await one<{ m: number | null }>(sql`
        select round((percentile_cont(0.5) within group (order by extract(epoch from answered_at - created_at)) / 3600)::numeric, 2)::float8 as m
        from community_posts where answered_at is not null and deleted_at is null and created_at >= ${from}::date and created_at < ${to}::date + 1`);
      const scope = { batchId: prog, range: resolveRange({ from, to }, ctx.clock.now()) };
      expect(await medianAnswerHours(ctx, scope, await splitCommunityDays(ctx, from, to))).toBe(direct.m);
    };
    const raw = async (from: string, to: string) =>
      (
        await one<{ n: number }>(sql`select count(distinct author_id)::int as n from community_posts
          where deleted_at is null and (created_at at time zone 'UTC')::date between ${from}::date and ${to}::date`)
      ).n;
    const counted = async (from: string, to: string) => {
      const split = await splitCommunityDays(ctx, from, to);
      return Number((await one<{ n: string }>(sql`select sum(n) as n from (${activeUserCounts(split, prog, from, null)}) x`)).n ?? 0);
    };
    const ranges = [
      ['2026-03-01', '2026-03-15'],
      ['2026-03-03', '2026-03-09'],
      ['2026-03-08', '2026-03-08'],
      ['2026-03-10', '2026-03-15'],
    ] as const;
    for (const [a, b] of ranges) expect(await counted(a, b)).toBe(await raw(a, b));
    await rollUpCommunity(ctx);
    expect((await one<{ n: number }>(sql`select count(*)::int as n from user_active_days where prev_day is not null`)).n).toBeGreaterThan(
      0,
    );
    for (const [a, b] of ranges) expect(await counted(a, b)).toBe(await raw(a, b));
    await ctx.db.execute(sql`update community_posts set deleted_at = now() where created_at < '2026-03-05'`);
    for (const [a, b] of ranges) expect(await counted(a, b)).toBe(await raw(a, b));
    await rollUpCommunity(ctx);
    for (const [a, b] of ranges) expect(await counted(a, b)).toBe(await raw(a, b));
    for (const [a, b] of ranges) await median(a, b);
    for (const [a, b] of ranges) {
      const split = await splitCommunityDays(ctx, a, b);
      const direct = await topContributors(ctx, split, prog, 0, 3);
      expect(direct.length).toBeGreaterThan(0);
      expect(await topContributors(ctx, split, prog, 0, 3, { minDays: 0, step: 2, steps: 100 })).toEqual(direct);
    }

    const users = await one<
      Record<string, number>
    >(sql`select count(*)::int as total, (count(*) filter (where role = 'admin'))::int as admins,
      (count(*) filter (where role = 'moderator'))::int as moderators, (count(*) filter (where status = 'suspended'))::int as suspended from users`);
    expect((await adminStats(ctx, {})).users).toEqual(users);
    await ctx.db.execute(sql`update users set status = 'suspended' where email = 'pg1@example.test'`);
    await ctx.db.execute(sql`delete from users where email = 'pg2@example.test'`);
    expect(await compactCounts(ctx)).toMatchObject({ users: expect.any(Number) });
    expect((await adminStats(ctx, {})).users).toEqual({ ...users, total: users.total! - 1, suspended: users.suspended! + 1 });

    const ids = (await ctx.db.execute<{ id: string }>(sql`select id from users where email like 'pg%' order by email limit 3`)).rows;
    for (const [i, u] of ids.entries()) {
      await ctx.db.transaction((tx) => awardPoints(tx, { userId: u.id, batchId: prog, points: 10 * (i + 1), reason: 'x' }));
    }
    await compactCounts(ctx);
    expect((await reputationSummary(ctx, ids[0]!.id, undefined)).rank).toBe(3);
    expect((await reputationSummary(ctx, ids[2]!.id, undefined)).rank).toBe(1);
  }, 120_000);

  it("a deleted post's comments stop counting at once and after the rollup (migration 0043's trigger)", async () => {
    const { id: prog } = await one<{ id: string }>(sql`insert into batches (name, slug) values ('PG deleted', 'pg-deleted') returning id`);
    const { id: author } = await one<{ id: string }>(
      sql`insert into users (email, password_hash, name) values ('deleted-post@example.test', 'x', 'Del') returning id`,
    );
    const { id: post } = await one<{ id: string }>(sql`insert into community_posts (batch_id, author_id, title, body, created_at)
      values (${prog}::uuid, ${author}::uuid, 'Q', 'Body', '2026-03-02 09:00Z') returning id`);
    await ctx.db.execute(sql`insert into comments (post_id, author_id, body, is_accepted, created_at)
      values (${post}::uuid, ${author}::uuid, 'a', true, '2026-03-03 10:00Z'), (${post}::uuid, ${author}::uuid, 'b', false, '2026-03-04 10:00Z')`);
    const totals = async () => {
      const t = await communityTotals(ctx, await splitCommunityDays(ctx, '2026-03-01', '2026-03-15'), prog);
      return { posts: t.posts, comments: t.comments, accepted: t.comments_accepted };
    };
    await rollUpCommunity(ctx);
    expect(await totals()).toEqual({ posts: 1, comments: 2, accepted: 1 });
    await ctx.db.execute(sql`update community_posts set deleted_at = now() where id = ${post}::uuid`);
    expect(await totals()).toEqual({ posts: 0, comments: 0, accepted: 0 });
    await rollUpCommunity(ctx);
    expect(await totals()).toEqual({ posts: 0, comments: 0, accepted: 0 });
  }, 60_000);
});
