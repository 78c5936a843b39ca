import {
  BossJobQueue,
  type CoreContext,
  createFaq,
  DAY_MS,
  embedRowJob,
  ensureQueues,
  fixedClock,
  freshnessCheckJob,
  JOBS,
} from '@cfaq/core';
import { batches, faqs, users } from '@cfaq/db/schema/index';
import { createTestContext, settled, startTestBoss, type TestContext, watchJobs } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../src/worker.js';

const clock = fixedClock('2026-03-01T06:00:00Z');
let t: TestContext;
let boss: PgBoss;
let worker: Worker;
let ctx: CoreContext;

beforeAll(async () => {
  t = await createTestContext({ clock });
  boss = await startTestBoss(t.url, { max: 2 });
  // embedRowJob's queue: its handler belongs to search; the queue must exist for sends to succeed.
  await ensureQueues(boss, [...JOBS, embedRowJob]);
  ctx = { ...t.ctx, jobs: new BossJobQueue(boss) };
  watchJobs(boss, [freshnessCheckJob]);
  worker = await startWorker(ctx, boss);
});
afterAll(async () => {
  await worker.stop(2000);
  await boss.stop({ graceful: false, close: true });
  await t.close();
});

describe('through pg-boss', () => {
  it('a content.freshness-check job runs the check', async () => {
    const [program] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
    const [due] = await t.ctx.db
      .insert(faqs)
      .values({
        batchId: program?.id as string,
        question: 'Due through boss?',
        answer: 'a',
        freshnessTier: 'seasonal',
        reviewIntervalDays: 15,
        lastVerifiedDate: new Date(clock.now().getTime() - 16 * DAY_MS),
        // Already embedded by the current model: the worker's on-start embeddings backfill would
        // otherwise update (lock) this row while the check runs, and the check skips locked rows.
        embedding: (await t.ctx.embedder.embed(['Due through boss?\na']))[0],
        embeddedAt: clock.now(),
        embeddingModel: t.ctx.embedder.model,
      })
      .returning({ id: faqs.id });
    const jobId = await ctx.jobs.send(freshnessCheckJob, {});
    expect(jobId).toBeTruthy();
    const job = await settled(boss, freshnessCheckJob, jobId as string, 15_000);
    expect(job.state).toBe('completed');
    const [row] = await t.ctx.db
      .select({ reviewStatus: faqs.reviewStatus })
      .from(faqs)
      .where(eq(faqs.id, due?.id as string));
    expect(row?.reviewStatus).toBe('pending_review');
  });

  it('creating a FAQ enqueues its embedding job in the same transaction', async () => {
    const [admin] = await t.ctx.db
      .insert(users)
      .values({ email: 'boss-admin@example.test', name: 'A', passwordHash: 'x', role: 'admin' })
      .returning({ id: users.id });
    const faq = await createFaq(ctx, { id: admin?.id as string, role: 'admin' }, { question: 'Embedded through boss?', answer: 'yes' });
    const rows = await t.ctx.pool.query("select data from pgboss.job where name = 'search.embed-row'");
    expect(rows.rows.map((r) => r.data)).toContainEqual({ table: 'faqs', id: faq.id });
    // a write that fails (unknown category) leaves no job behind
    await expect(
      createFaq(ctx, { id: admin?.id as string, role: 'admin' }, { question: 'Rolled back?', answer: 'no', category: 'nope' }),
    ).rejects.toThrow();
    const after = await t.ctx.pool.query("select count(*)::int as n from pgboss.job where name = 'search.embed-row'");
    expect(after.rows[0].n).toBe(rows.rows.length);
  });
});
