import { badges, batches, notificationSettings, notifications, reputationLogs, reputationTotals, users } from '@cfaq/db/schema/index';
import { createTestContext, createUser, type TestContext } from '@cfaq/testkit';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactCounts } from '../src/analytics/counts.js';
import { acceptComment, addComment, verifyComment, voteComment } from '../src/community/comments.js';
import { convertPostToFaq } from '../src/community/convert.js';
import { createPost, votePost } from '../src/community/posts.js';
import { giveFeedback } from '../src/faqs/feedback.js';
import { createFaq } from '../src/faqs/service.js';
import { deleteUser } from '../src/identity/users.js';
import { resolveProgramId } from '../src/programs/resolve.js';
import { awardPoints, reversePoints } from '../src/reputation/awards.js';
import { awardBadge, revokeBadge } from '../src/reputation/badges.js';
import { POINTS } from '../src/reputation/points.js';
import { leaderboard, periodStart, reputationSummary } from '../src/reputation/service.js';
import type { Actor } from '../src/shared/db.js';

let t: TestContext;
let batchId: string;
beforeAll(async () => {
  t = await createTestContext({ poolSize: 20 });
  batchId = await resolveProgramId(t.ctx, null);
});
afterAll(async () => {
  await t.close();
});

const actor = async (role: Actor['role'] = 'user'): Promise<Actor> => {
  const u = await createUser(t.ctx, { role });
  return { id: u.id, role };
};

/** Every total of the user (program totals per period and users.reputation) against the log's sums. */
async function expectTotalsMatchLog(userId: string) {
  const { db } = t.ctx;
  const [logSum] = await db
    .select({ n: sql<number>`coalesce(sum(${reputationLogs.points}), 0)::int` })
    .from(reputationLogs)
    .where(and(eq(reputationLogs.userId, userId), eq(reputationLogs.batchId, batchId)));
  const [all] = await db
    .select({ points: reputationTotals.points })
    .from(reputationTotals)
    .where(and(eq(reputationTotals.userId, userId), eq(reputationTotals.batchId, batchId), eq(reputationTotals.period, 'all')));
  const [user] = await db.select({ reputation: users.reputation }).from(users).where(eq(users.id, userId));
  expect(all?.points ?? 0).toBe(logSum?.n);
  expect(user?.reputation).toBe(logSum?.n);
  // Week and month totals too: each row counts in the periods of the award it belongs to (a
  // reversal in those of the award it takes back).
  for (const period of ['week', 'month'] as const) {
    const fromLog = await db.execute<{ start: string; n: number }>(sql`
      select to_char(date_trunc(${period}, coalesce(a.created_at, l.created_at) at time zone 'UTC'), 'YYYY-MM-DD') as start,
        sum(l.points)::int as n
      from reputation_logs l left join reputation_logs a on a.id = l.reverses_id
      where l.user_id = ${userId} and l.batch_id = ${batchId} group by 1 order by 1`);
    const totals = await db.execute<{ start: string; n: number }>(sql`
      select to_char(period_start, 'YYYY-MM-DD') as start, points as n from reputation_totals
      where user_id = ${userId} and batch_id = ${batchId} and period = ${period} and points <> 0 order by 1`);
    expect(totals.rows).toEqual(fromLog.rows.filter((r) => r.n !== 0));
  }
  await expectBoardSizesMatch();
  return logSum?.n ?? 0;
}

/** Every leaderboard's kept size (reputation_board_sizes) against a count of its positive totals. */
async function expectBoardSizesMatch() {
  const sizes = await t.ctx.db.execute<{ k: string; n: number }>(sql`
    select batch_id || period || period_start as k, users as n from reputation_board_sizes where users <> 0 order by 1`);
  const counted = await t.ctx.db.execute<{ k: string; n: number }>(sql`
    select batch_id || period || period_start as k, count(*)::int as n from reputation_totals where points > 0 group by 1 order by 1`);
  expect(sizes.rows).toEqual(counted.rows);
  // Users per points value (reputation_point_counts, appended rows summed) against the totals.
  const kept = await t.ctx.db.execute<{ k: string; n: number }>(sql`
    select batch_id || period || period_start || ':' || points as k, sum(users)::int as n from reputation_point_counts
    group by 1 having sum(users) <> 0 order by 1`);
  const byValue = await t.ctx.db.execute<{ k: string; n: number }>(sql`
    select batch_id || period || period_start || ':' || points as k, count(*)::int as n from reputation_totals where points > 0
    group by 1 order by 1`);
  expect(kept.rows).toEqual(byValue.rows);
}

describe('awardPoints', () => {
  it('counts an event once: a repeated key does nothing, a reversal frees it', async () => {
    const u = await actor();
    const award = () =>
      t.ctx.db.transaction((tx) => awardPoints(tx, { userId: u.id, batchId, points: 7, reason: 'test', sourceKey: `k:${u.id}` }));
    expect(await award()).toMatchObject({ points: 7, total: 7 });
    expect(await award()).toBeNull();
    expect(await expectTotalsMatchLog(u.id)).toBe(7);
    expect(await t.ctx.db.transaction((tx) => reversePoints(tx, `k:${u.id}`))).toMatchObject({ points: -7 });
    expect(await t.ctx.db.transaction((tx) => reversePoints(tx, `k:${u.id}`))).toBeNull();
    expect(await expectTotalsMatchLog(u.id)).toBe(0);
    expect(await award()).toMatchObject({ points: 7 });
    expect(await expectTotalsMatchLog(u.id)).toBe(7);
    const rows = await t.ctx.db.select().from(reputationLogs).where(eq(reputationLogs.userId, u.id));
    expect(rows.map((r) => r.reason).sort()).toEqual(['test', 'test', 'test_reversed']);
  });

  it('concurrent awards of one key write one row', async () => {
    const u = await actor();
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.ctx.db.transaction((tx) => awardPoints(tx, { userId: u.id, batchId, points: 3, reason: 'race', sourceKey: `race:${u.id}` })),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await expectTotalsMatchLog(u.id)).toBe(3);
  });

  it('moves the week and month totals of the award time', async () => {
    const u = await actor();
    await t.ctx.db.transaction((tx) => awardPoints(tx, { userId: u.id, batchId, points: 4, reason: 'x', sourceKey: `p:${u.id}` }));
    const rows = await t.ctx.db.select().from(reputationTotals).where(eq(reputationTotals.userId, u.id));
    const now = new Date();
    expect(Object.fromEntries(rows.map((r) => [r.period, [r.periodStart, r.points]]))).toEqual({
      all: ['1970-01-01', 4],
      week: [periodStart('week', now), 4],
      month: [periodStart('month', now), 4],
    });
  });

  it('crossing 100 points awards rising_star once', async () => {
    const u = await actor();
    for (let i = 0; i < 3; i++) {
      await t.ctx.db.transaction((tx) => awardPoints(tx, { userId: u.id, batchId, points: 40, reason: 'x', sourceKey: `t:${u.id}:${i}` }));
    }
    const held = await t.ctx.db.select().from(badges).where(eq(badges.userId, u.id));
    expect(held.map((b) => b.name)).toEqual(['rising_star']);
    const notes = await t.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
    expect(notes.map((n) => n.kind)).toEqual(['badge_awarded']);
  });

  it("a badge's own points crossing 100 award rising_star too (first_responder's +20 from 85)", async () => {
    const u = await actor();
    await t.ctx.db.transaction((tx) => awardPoints(tx, { userId: u.id, batchId, points: 85, reason: 'x', sourceKey: `r:${u.id}` }));
    await t.ctx.db.transaction((tx) => awardBadge(tx, { userId: u.id, batchId, name: 'first_responder' }));
    const held = await t.ctx.db.select().from(badges).where(eq(badges.userId, u.id));
    expect(held.map((b) => b.name).sort()).toEqual(['first_responder', 'rising_star']);
  });
});

describe('votes and other events', () => {
  it('concurrent votes and toggles keep the totals equal to the log', async () => {
    const author = await actor();
    const post = await createPost(t.ctx, author, { title: 'How do I reset my password?', body: 'It does not work.' });
    const voters = await Promise.all(Array.from({ length: 10 }, () => actor()));
    await Promise.all(voters.map((v) => votePost(t.ctx, v, post.id, 1)));
    expect(await expectTotalsMatchLog(author.id)).toBe(10 * POINTS.post_upvoted);
    // Half undo (same direction again), two switch to a downvote, all at once, some twice.
    await Promise.all([
      ...voters.slice(0, 5).map((v) => votePost(t.ctx, v, post.id, 1)),
      ...voters.slice(5, 7).map((v) => votePost(t.ctx, v, post.id, -1)),
      ...voters.slice(7, 9).flatMap((v) => [votePost(t.ctx, v, post.id, 1), votePost(t.ctx, v, post.id, 1)]),
    ]);
    const live = await t.ctx.db.execute<{ up: number; down: number }>(
      sql`select count(*) filter (where value = 1)::int as up, count(*) filter (where value = -1)::int as down from post_votes where post_id = ${post.id}`,
    );
    const { up, down } = live.rows[0] as { up: number; down: number };
    expect(await expectTotalsMatchLog(author.id)).toBe(up * POINTS.post_upvoted + down * POINTS.post_downvoted);
    // Own votes are refused (CANNOT_VOTE_OWN) and earn nothing.
    await expect(votePost(t.ctx, author, post.id, 1)).rejects.toMatchObject({ status: 403, code: 'CANNOT_VOTE_OWN' });
    expect(await expectTotalsMatchLog(author.id)).toBe(up * POINTS.post_upvoted + down * POINTS.post_downvoted);
  });

  it("one voter's 16 simultaneous mixed clicks all succeed and leave counters, rows and points equal", async () => {
    const author = await actor();
    const voter = await actor();
    const post = await createPost(t.ctx, author, { title: 'Where do I find the schedule?', body: 'Lost it.' });
    // Mixed directions at once used to race the insert, toggle and switch into "kept racing" (a 500).
    const clicks = Array.from({ length: 16 }, (_, i) => votePost(t.ctx, voter, post.id, i % 3 === 0 ? -1 : 1));
    const settled = await Promise.allSettled(clicks);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    const live = await t.ctx.db.execute<{ up: number; down: number; cu: number; cd: number }>(
      sql`select count(*) filter (where v.value = 1)::int as up, count(*) filter (where v.value = -1)::int as down,
            max(p.upvotes)::int as cu, max(p.downvotes)::int as cd
          from community_posts p left join post_votes v on v.post_id = p.id where p.id = ${post.id}`,
    );
    const r = live.rows[0] as { up: number; down: number; cu: number; cd: number };
    expect([r.cu, r.cd]).toEqual([r.up, r.down]);
    expect(await expectTotalsMatchLog(author.id)).toBe(r.up * POINTS.post_upvoted + r.down * POINTS.post_downvoted);
  });

  it("deleting an account withdraws its votes and feedback: counters equal the rows, the authors' points are reversed", async () => {
    const author = await actor();
    const voter = await actor();
    const other = await actor();
    const admin = await actor('admin');
    const post = await createPost(t.ctx, author, { title: 'How do I get a locker?', body: 'Asking.' });
    const comment = await addComment(t.ctx, author, post.id, 'Ask at the front desk.');
    const faq = await createFaq(t.ctx, author, { question: 'Where are the lockers?', answer: 'Downstairs.' });
    await votePost(t.ctx, voter, post.id, 1);
    await votePost(t.ctx, other, post.id, -1);
    await voteComment(t.ctx, voter, post.id, comment.id, 1);
    await giveFeedback(t.ctx, voter, faq.id, { helpful: true });
    await giveFeedback(t.ctx, other, faq.id, { helpful: false });
    await deleteUser(t.ctx, { id: admin.id }, { userId: voter.id });
    const counts = await t.ctx.db.execute<Record<string, number>>(sql`select
      (select upvotes from community_posts where id = ${post.id})::int as pu, (select downvotes from community_posts where id = ${post.id})::int as pd,
      (select upvotes from comments where id = ${comment.id})::int as cu,
      (select helpful_count from faqs where id = ${faq.id})::int as fh, (select not_helpful_count from faqs where id = ${faq.id})::int as fn`);
    expect(counts.rows[0]).toEqual({ pu: 0, pd: 1, cu: 0, fh: 0, fn: 1 });
    expect(await expectTotalsMatchLog(author.id)).toBe(POINTS.post_downvoted);
  });

  it('accepting, re-accepting another answer, verifying, converting and FAQ feedback', async () => {
    const asker = await actor();
    const mod = await actor('moderator');
    const a = await actor();
    const b = await actor();
    const post = await createPost(t.ctx, asker, { title: 'Where is the syllabus?', body: 'Looking for it.' });
    const ca = await addComment(t.ctx, a, post.id, 'On the course page.');
    const cb = await addComment(t.ctx, b, post.id, 'In the welcome email.');
    await acceptComment(t.ctx, asker, post.id, ca.id);
    await acceptComment(t.ctx, asker, post.id, ca.id);
    expect(await expectTotalsMatchLog(a.id)).toBe(POINTS.answer_accepted);
    await acceptComment(t.ctx, asker, post.id, cb.id);
    expect(await expectTotalsMatchLog(a.id)).toBe(0);
    expect(await expectTotalsMatchLog(b.id)).toBe(POINTS.answer_accepted);
    await verifyComment(t.ctx, mod, post.id, cb.id);
    await verifyComment(t.ctx, mod, post.id, cb.id);
    expect(await expectTotalsMatchLog(b.id)).toBe(POINTS.answer_accepted + POINTS.comment_verified);
    const held = await t.ctx.db.select({ name: badges.name }).from(badges).where(eq(badges.userId, b.id));
    expect(held.map((r) => r.name).sort()).toEqual(['first_answer', 'verified_answer']);
    // a's first_answer badge stays: badges are not taken back with the points.
    const { faq } = await convertPostToFaq(t.ctx, mod, post.id, {});
    expect(await expectTotalsMatchLog(asker.id)).toBe(POINTS.post_converted);
    const reader = await actor();
    await giveFeedback(t.ctx, reader, faq.id, { helpful: true });
    await giveFeedback(t.ctx, reader, faq.id, { helpful: true });
    expect(await expectTotalsMatchLog(asker.id)).toBe(POINTS.post_converted + POINTS.faq_feedback_helpful);
    await giveFeedback(t.ctx, reader, faq.id, { helpful: false });
    expect(await expectTotalsMatchLog(asker.id)).toBe(POINTS.post_converted);
    // A FAQ written by staff credits its creator.
    const own = await createFaq(t.ctx, mod, { question: 'Office hours?', answer: 'Tuesdays.' });
    await giveFeedback(t.ctx, reader, own.id, { helpful: true });
    expect(await expectTotalsMatchLog(mod.id)).toBe(POINTS.faq_feedback_helpful);
  });

  it("staff accepting the asker's own answer to their post earns the asker nothing (a self-answer)", async () => {
    const asker = await actor();
    const mod = await actor('moderator');
    const post = await createPost(t.ctx, asker, { title: 'Can I defer my start date?', body: 'Asking for myself.' });
    const own = await addComment(t.ctx, asker, post.id, 'Found it: email the programme office before week one.');
    await acceptComment(t.ctx, mod, post.id, own.id);
    expect(await expectTotalsMatchLog(asker.id)).toBe(0);
    const held = await t.ctx.db.select({ name: badges.name }).from(badges).where(eq(badges.userId, asker.id));
    expect(held).toEqual([]);
  });
});

describe('awardBadge', () => {
  it('concurrent awards write one badge, its points and one notification', async () => {
    const u = await actor();
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.ctx.db.transaction((tx) => awardBadge(tx, { userId: u.id, batchId, name: 'first_responder', reason: 'answered post X' })),
      ),
    );
    expect(results.filter((r) => r.awarded)).toHaveLength(1);
    const held = await t.ctx.db.select().from(badges).where(eq(badges.userId, u.id));
    expect(held).toHaveLength(1);
    const notes = await t.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
    expect(notes.map((n) => n.kind)).toEqual(['first_responder_awarded']);
    expect(await expectTotalsMatchLog(u.id)).toBe(POINTS.first_responder);
  });

  it('an automatic award never comes back after a revoke; an admin re-issue does', async () => {
    const u = await actor();
    await t.ctx.db.transaction((tx) => awardBadge(tx, { userId: u.id, batchId, name: 'first_responder' }));
    expect(
      await t.ctx.db.transaction((tx) =>
        revokeBadge(tx, { userId: u.id, batchId, name: 'first_responder', reason: 'mistake', revokedBy: null }),
      ),
    ).toBeTruthy();
    expect(await expectTotalsMatchLog(u.id)).toBe(0);
    expect((await t.ctx.db.transaction((tx) => awardBadge(tx, { userId: u.id, batchId, name: 'first_responder' }))).awarded).toBe(false);
    expect(
      (await t.ctx.db.transaction((tx) => awardBadge(tx, { userId: u.id, batchId, name: 'first_responder', mode: 'live' }))).awarded,
    ).toBe(true);
    const live = await t.ctx.db
      .select()
      .from(badges)
      .where(and(eq(badges.userId, u.id), isNull(badges.revokedAt)));
    expect(live).toHaveLength(1);
    expect(await expectTotalsMatchLog(u.id)).toBe(POINTS.first_responder);
  });

  it('honours the notification settings: a kind switched off writes the badge but no notification', async () => {
    const u = await actor();
    await t.ctx.db.insert(notificationSettings).values({ userId: u.id, kinds: { badge_awarded: false } });
    const res = await t.ctx.db.transaction((tx) => awardBadge(tx, { userId: u.id, batchId, name: 'helper' }));
    expect(res.awarded).toBe(true);
    expect(await t.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id))).toHaveLength(0);
  });
});

describe('leaderboard and summary', () => {
  it('ranks by points with shared ranks for ties and pages, per program', async () => {
    const [program] = await t.ctx.db
      .insert(batches)
      .values({ name: 'Ranked', slug: `ranked-${Date.now()}` })
      .returning({ id: batches.id });
    const b = program!.id;
    const us = await Promise.all([50, 30, 30, 10].map(async (p) => ({ u: await actor(), p })));
    for (const { u, p } of us) await t.ctx.db.transaction((tx) => awardPoints(tx, { userId: u.id, batchId: b, points: p, reason: 'x' }));
    const page1 = await leaderboard(t.ctx, { batchId: b, period: 'week', limit: 2 });
    expect(page1.total).toBe(4);
    expect(page1.items.map((i) => [i.rank, i.points])).toEqual([
      [1, 50],
      [2, 30],
    ]);
    const page2 = await leaderboard(t.ctx, { batchId: b, period: 'all', limit: 2, page: 2 });
    expect(page2.items.map((i) => [i.rank, i.points])).toEqual([
      [2, 30],
      [4, 10],
    ]);
    const s = await reputationSummary(t.ctx, us[3]!.u.id, b);
    expect(s).toMatchObject({ points: 10, weekPoints: 10, monthPoints: 10, rank: 4, totalReputation: 10 });
    // Another program's board does not list them.
    const other = await leaderboard(t.ctx, { period: 'all', limit: 100 });
    expect(other.items.some((i) => us.some(({ u }) => u.id === i.userId))).toBe(false);
    // The total is kept, not counted: a user falling to zero leaves the board, a deleted user too.
    await t.ctx.db.transaction((tx) => awardPoints(tx, { userId: us[3]!.u.id, batchId: b, points: -10, reason: 'x' }));
    expect((await leaderboard(t.ctx, { batchId: b, period: 'week' })).total).toBe(3);
    await t.ctx.db.delete(users).where(eq(users.id, us[0]!.u.id));
    expect((await leaderboard(t.ctx, { batchId: b, period: 'month' })).total).toBe(2);
    await expectBoardSizesMatch();
    // Ranks come from the kept counts per points value, the same after the rollup job folds them.
    expect((await reputationSummary(t.ctx, us[2]!.u.id, b)).rank).toBe(1);
    expect((await leaderboard(t.ctx, { batchId: b, period: 'all', limit: 1, page: 2 })).items.map((i) => i.rank)).toEqual([1]);
    await t.ctx.db.transaction((tx) => awardPoints(tx, { userId: us[1]!.u.id, batchId: b, points: 5, reason: 'x' }));
    const folded = await compactCounts(t.ctx);
    expect(folded.points).toBeGreaterThan(0);
    await expectBoardSizesMatch();
    expect((await reputationSummary(t.ctx, us[2]!.u.id, b)).rank).toBe(2);
    expect((await leaderboard(t.ctx, { batchId: b, period: 'all', limit: 1, page: 2 })).items.map((i) => [i.rank, i.points])).toEqual([
      [2, 30],
    ]);
  });
});
