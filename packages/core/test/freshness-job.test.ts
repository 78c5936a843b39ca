import { DAY_MS, fixedClock, freshnessCheckJob, JOBS } from '@cfaq/core';
import { batches, faqs } from '@cfaq/db/schema/index';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const clock = fixedClock('2026-02-01T06:00:00Z');
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ clock });
});
afterAll(async () => {
  await t.close();
});

describe('content.freshness-check job', () => {
  it('is in the one job list', () => {
    expect(JOBS).toContain(freshnessCheckJob);
  });

  it('flags a due volatile FAQ and escalates an overdue review', async () => {
    const [program] = await t.ctx.db.select({ id: batches.id }).from(batches).where(eq(batches.isDefault, true));
    const batchId = program?.id as string;
    const [due] = await t.ctx.db
      .insert(faqs)
      .values({
        batchId,
        question: 'Due?',
        answer: 'a',
        freshnessTier: 'volatile',
        reviewIntervalDays: 4,
        lastVerifiedDate: new Date(clock.now().getTime() - 5 * DAY_MS),
      })
      .returning({ id: faqs.id });
    const [overdue] = await t.ctx.db
      .insert(faqs)
      .values({
        batchId,
        question: 'Overdue?',
        answer: 'a',
        reviewStatus: 'pending_review',
        flaggedAt: new Date(clock.now().getTime() - 4 * DAY_MS),
      })
      .returning({ id: faqs.id });
    const result = await freshnessCheckJob.handler(t.ctx, {}, { id: 'job-1', retryCount: 0 });
    expect(result).toEqual({ flagged: [due?.id], escalated: [overdue?.id] });
    const rows = await t.ctx.db.select({ id: faqs.id, reviewStatus: faqs.reviewStatus }).from(faqs);
    expect(rows.find((r) => r.id === due?.id)?.reviewStatus).toBe('pending_review');
    expect(rows.find((r) => r.id === overdue?.id)?.reviewStatus).toBe('update_requested');
    // idempotent: a second run in the same instant moves nothing
    expect(await freshnessCheckJob.handler(t.ctx, {}, { id: 'job-2', retryCount: 0 })).toEqual({ flagged: [], escalated: [] });
  });
});
