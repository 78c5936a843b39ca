import { type Actor, createFaq, DAY_MS, fixedClock, flagFaq, freshnessCheckJob, JOBS, runFreshnessCheck, voteReview } from '@cfaq/core';
import { faqs, freshReviewLogs } from '@cfaq/db/schema/index';
import { createTestContext, createUser, type TestContext } from '@cfaq/testkit';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Moved from apps/api/test/faq-review.test.ts: the freshness check is core and needs no HTTP.
const clock = fixedClock('2026-01-10T06:00:00Z');
let t: TestContext;
let admin: Actor;
let voters: Actor[];

beforeAll(async () => {
  t = await createTestContext({ clock });
  const { id } = await createUser(t.ctx, { role: 'admin' });
  admin = { id, role: 'admin' };
  voters = (await Promise.all(Array.from({ length: 3 }, () => createUser(t.ctx)))).map((u) => ({ id: u.id, role: 'user' as const }));
});
afterAll(async () => {
  await t.close();
});

const newFaq = (input: Partial<Parameters<typeof createFaq>[2]> = {}) =>
  createFaq(t.ctx, admin, { question: 'When does registration close?', answer: 'On Friday.', ...input });
const faqRow = async (id: string) => (await t.ctx.db.select().from(faqs).where(eq(faqs.id, id)))[0] as typeof faqs.$inferSelect;
const logsOf = (id: string) =>
  t.ctx.db.select().from(freshReviewLogs).where(eq(freshReviewLogs.faqId, id)).orderBy(asc(freshReviewLogs.createdAt));

describe('freshness check and auto-escalation (content.freshness-check)', () => {
  it('is a registered job on the FAQ_FRESHNESS_CRON_SCHEDULE cron', () => {
    expect(JOBS).toContain(freshnessCheckJob);
    expect(freshnessCheckJob.schedule?.(t.ctx.config)).toEqual({ cron: '0 6 * * *' });
  });

  it('flags non-evergreen FAQs past their interval; evergreen never; then escalates after FAQ_ESCALATION_DAYS', async () => {
    await runFreshnessCheck(t.ctx); // settle anything earlier tests left due
    const seasonal = await newFaq({ question: 'Seasonal timing?', freshnessTier: 'seasonal' });
    const volatile = await newFaq({ question: 'Volatile timing?', freshnessTier: 'volatile' });
    const evergreen = await newFaq({ question: 'Evergreen timing?' });
    const draft = await newFaq({ question: 'Draft volatile timing?', freshnessTier: 'volatile', reviewStatus: 'draft' });

    clock.advance(4 * DAY_MS); // exactly the volatile interval: not yet exceeded
    expect((await runFreshnessCheck(t.ctx)).flagged).toEqual([]);

    clock.advance(60_000);
    const first = await runFreshnessCheck(t.ctx);
    expect(first.flagged).toEqual([volatile.id]);
    const v = await faqRow(volatile.id);
    expect(v).toMatchObject({ reviewStatus: 'pending_review', reviewCycle: 1, flagType: 'auto' });
    expect(v.flaggedAt?.toISOString()).toBe(clock.now().toISOString());
    expect(await logsOf(volatile.id)).toMatchObject([{ action: 'flagged', fromStatus: 'approved', toStatus: 'pending_review', cycle: 1 }]);

    clock.advance(11 * DAY_MS); // seasonal (15 days) now due; volatile has waited 11 days -> escalated
    const second = await runFreshnessCheck(t.ctx);
    expect(second.flagged).toEqual([seasonal.id]);
    expect(second.escalated).toEqual([volatile.id]);
    const escalated = await faqRow(volatile.id);
    expect(escalated.reviewStatus).toBe('update_requested');
    expect(escalated.escalatedAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await logsOf(volatile.id)).at(-1)).toMatchObject({
      action: 'escalated',
      fromStatus: 'pending_review',
      toStatus: 'update_requested',
    });

    clock.advance(365 * DAY_MS);
    await runFreshnessCheck(t.ctx);
    expect((await faqRow(evergreen.id)).reviewStatus).toBe('approved');
    expect((await faqRow(draft.id)).reviewStatus).toBe('draft');
    expect((await faqRow(seasonal.id)).reviewStatus).toBe('update_requested');
  });

  it("a FAQ the check flags starts its round without an earlier round's escalatedAt", async () => {
    await runFreshnessCheck(t.ctx); // settle anything earlier tests left due
    const faq = await newFaq({ question: 'Stale escalation timing?', freshnessTier: 'volatile' });
    // A verified FAQ still carrying an old round's escalatedAt (rows written before flags cleared it).
    await t.ctx.db
      .update(faqs)
      .set({ reviewStatus: 'verified', escalatedAt: new Date(clock.now().getTime() - 20 * DAY_MS) })
      .where(eq(faqs.id, faq.id));
    clock.advance(4 * DAY_MS + 60_000);
    expect((await runFreshnessCheck(t.ctx)).flagged).toContain(faq.id);
    expect(await faqRow(faq.id)).toMatchObject({ reviewStatus: 'pending_review', flagType: 'auto', escalatedAt: null });
  });

  it('escalation waits exactly FAQ_ESCALATION_DAYS after the flag', async () => {
    const faq = await newFaq({ question: 'Escalation timing?' });
    await flagFaq(t.ctx, admin, faq.id, 'Dates changed this year');
    clock.advance(3 * DAY_MS - 60_000);
    expect((await runFreshnessCheck(t.ctx)).escalated).not.toContain(faq.id);
    clock.advance(60_000);
    expect((await runFreshnessCheck(t.ctx)).escalated).toContain(faq.id);
  });

  it('a verified FAQ comes due again after its interval from lastVerifiedDate', async () => {
    const faq = await newFaq({ question: 'Verified then due?', freshnessTier: 'volatile' });
    await flagFaq(t.ctx, admin, faq.id, 'Dates changed this year');
    for (const v of voters.slice(0, 3)) await voteReview(t.ctx, v, faq.id, { verdict: 'still_accurate' });
    clock.advance(4 * DAY_MS + 1000);
    expect((await runFreshnessCheck(t.ctx)).flagged).toContain(faq.id);
    expect(await faqRow(faq.id)).toMatchObject({ reviewStatus: 'pending_review', reviewCycle: 2 });
  });
});
