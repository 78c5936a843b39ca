import { auditStats, JOBS, matchInsights, runFaqAudit } from '@cfaq/core';
import { confInsights, confMeetings, faqs, freshReviewLogs, pipelineResults, transcriptKnowledge } from '@cfaq/db/schema/index';
import { axisEmbedder, createKnowledge, defaultProgramId, type FakeAiServer, quickAiEnv, startFakeOpenAI, unitVector } from '@cfaq/testkit';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../packages/core/src/runtime/clock.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const DAY = 86_400_000;
const clock = fixedClock(NOW);
// "[axisN]" in a FAQ question embeds it on axis N; knowledge rows sit at a chosen cosine to it.
const embedder = axisEmbedder();
let t: TestApp;
let fake: FakeAiServer;
let program: string;
let admin: { headers: { authorization: string }; id: string };
let moderator: { headers: { authorization: string }; id: string };

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestApp({
    clock,
    embedder,
    env: { ...GENEROUS_LIMITS, ...quickAiEnv(fake) },
  });
  program = await defaultProgramId(t.ctx);
  admin = await t.signIn('admin');
  moderator = await t.signIn('moderator');
});
afterAll(async () => {
  await fake.close();
  await t.close();
});
beforeEach(async () => {
  await t.ctx.db.delete(pipelineResults);
  await t.ctx.db.delete(faqs);
  await t.ctx.db.delete(transcriptKnowledge);
  await t.ctx.db.delete(confInsights);
  fake.calls.length = 0;
  embedder.failing = false;
});

async function faq(axis: number, values: Partial<typeof faqs.$inferInsert> = {}) {
  const [row] = await t.ctx.db
    .insert(faqs)
    .values({
      batchId: program,
      question: `When does the library open [axis${axis}]?`,
      answer: 'At 9 am on weekdays.',
      createdAt: new Date(NOW.getTime() - 10 * DAY),
      lastVerifiedDate: new Date(NOW.getTime() - 10 * DAY),
      ...values,
    })
    .returning();
  return row as typeof faqs.$inferSelect;
}
const reload = async (id: string) => (await t.ctx.db.select().from(faqs).where(eq(faqs.id, id)))[0] as typeof faqs.$inferSelect;
/** A meeting of the default program, for insights to belong to. */
const meeting = async (topic: string) =>
  (
    await t.ctx.db
      .insert(confMeetings)
      .values({ confMeetingId: `m-${topic}-${Date.now()}`, topic, sourcing: 'manual_raw', batchId: program })
      .returning()
  )[0];
const insight = async (meetingId: string, question: string, answer: string, createdAt: Date) =>
  (await t.ctx.db.insert(confInsights).values({ meetingId, batchId: program, question, answer, createdAt }).returning())[0];
const KNOWLEDGE = 'Library hours. The library opens at 10 am on weekdays since the spring term.';

describe('the audit run', () => {
  it('a contradiction flags the FAQ, logs a PipelineResult with verified evidence and cited sources', async () => {
    const f = await faq(1);
    const k = await createKnowledge(t.ctx, { title: 'Library hours', content: KNOWLEDGE, embedding: unitVector(1, 0.95) });
    fake.reply = () => ({
      score: 0.3,
      confidence: 0.9,
      reason: 'The knowledge base says 10 am.',
      citedSourceIds: [k.id, 'made-up-id'],
      evidence: [
        { sourceId: k.id, quote: 'The library opens at 10 am on weekdays' },
        { sourceId: k.id, quote: 'The library opens at 11 am' },
      ],
    });
    const run = await runFaqAudit(t.ctx);
    expect(run.items).toHaveLength(1);
    expect(run.items[0]).toMatchObject({ verdict: 'contradiction', flagged: true, sources: [k.id], knowledgeSearch: 'ok' });
    expect(run.items[0]?.evidence).toEqual([
      { sourceId: k.id, sourceType: 'transcript_knowledge', quote: 'The library opens at 10 am on weekdays' },
    ]);
    const row = await reload(f.id);
    expect(row).toMatchObject({
      reviewStatus: 'pending_review',
      flagType: 'auto',
      reviewCycle: 1,
      lastCheckedAt: NOW,
      flagReason: '[AI Audit] contradiction: The knowledge base says 10 am.',
    });
    const [pr] = await t.ctx.db.select().from(pipelineResults);
    expect(pr).toMatchObject({
      pipeline: 'faq_audit',
      targetModel: 'FAQ',
      targetId: f.id,
      verdict: 'contradiction',
      flagged: true,
      sources: [k.id],
    });
    expect(pr?.score).toBeCloseTo(0.3, 5);
    expect(pr?.confidence).toBeCloseTo(0.9, 5);
    // the prompt held the FAQ and the source
    expect(fake.calls[0]?.prompt).toContain(KNOWLEDGE);
    // it appears in the review queue with its audit
    const queue = (await t.app.inject({ method: 'GET', url: '/api/admin/faqs/review', headers: admin.headers })).json() as {
      items: { id: string; latestAudit: { verdict: string } | null }[];
    };
    expect(queue.items.find((i) => i.id === f.id)?.latestAudit?.verdict).toBe('contradiction');
    const logs = await t.ctx.db.select().from(freshReviewLogs).where(eq(freshReviewLogs.faqId, f.id));
    expect(logs).toMatchObject([{ action: 'flagged', toStatus: 'pending_review' }]);
  });

  it('a correct verdict only moves lastCheckedAt; batch order: never checked first, then oldest, at most FAQ_AUDIT_BATCH_SIZE', async () => {
    const checkedLong = await faq(2, { lastCheckedAt: new Date(NOW.getTime() - 30 * DAY), question: 'Old check [axis2]?' });
    const checkedRecent = await faq(2, { lastCheckedAt: new Date(NOW.getTime() - DAY), question: 'Recent check [axis2]?' });
    const never = await faq(2, { question: 'Never checked [axis2]?' });
    const draft = await faq(2, { question: 'Draft [axis2]?', reviewStatus: 'draft' });
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(2, 0.9) });
    fake.reply = () => ({ score: 0.9, confidence: 0.9, reason: 'Matches.', citedSourceIds: [], evidence: [] });
    const small = { ...t.ctx, config: { ...t.ctx.config, FAQ_AUDIT_BATCH_SIZE: 2 } };
    const run = await runFaqAudit(small);
    expect(run.items.map((i) => i.faqId)).toEqual([never.id, checkedLong.id]);
    expect(await reload(never.id)).toMatchObject({ reviewStatus: 'approved', lastCheckedAt: NOW, reviewCycle: 0 });
    expect((await reload(checkedRecent.id)).lastCheckedAt?.toISOString()).toBe(new Date(NOW.getTime() - DAY).toISOString());
    expect((await reload(draft.id)).lastCheckedAt).toBeNull();
  });

  it('a knowledge-search failure gives no context (stale for an old never-verified FAQ) and the audit goes on', async () => {
    const old = await faq(3, {
      question: 'Old one [axis3]?',
      createdAt: new Date(NOW.getTime() - 400 * DAY),
      lastVerifiedDate: new Date(NOW.getTime() - 400 * DAY),
    });
    const young = await faq(3, { question: 'Young one [axis3]?' });
    embedder.failing = true;
    const run = await runFaqAudit(t.ctx);
    expect(run.items.find((i) => i.faqId === old.id)).toMatchObject({ verdict: 'stale', flagged: true, knowledgeSearch: 'failed' });
    expect(run.items.find((i) => i.faqId === young.id)).toMatchObject({ verdict: 'skipped', flagged: false, knowledgeSearch: 'failed' });
    expect(await reload(old.id)).toMatchObject({ reviewStatus: 'pending_review', flagType: 'auto', lastCheckedAt: NOW });
    expect((await reload(old.id)).flagReason).toMatch(/^\[AI Audit\] stale: /);
    expect(await reload(young.id)).toMatchObject({ reviewStatus: 'approved', lastCheckedAt: NOW });
    expect(fake.calls).toHaveLength(0);
  });

  it('age runs from publication: a draft made 400 days ago and published 10 days ago is not stale', async () => {
    const late = await faq(7, {
      question: 'Published late [axis7]?',
      createdAt: new Date(NOW.getTime() - 400 * DAY),
      lastVerifiedDate: new Date(NOW.getTime() - 10 * DAY),
    });
    embedder.failing = true;
    const run = await runFaqAudit(t.ctx);
    expect(run.items.find((i) => i.faqId === late.id)).toMatchObject({ verdict: 'skipped', flagged: false });
    expect(await reload(late.id)).toMatchObject({ reviewStatus: 'approved' });
  });

  it('knowledge about something else is no context: an old never-verified FAQ is stale, and no provider call is made', async () => {
    // The program's knowledge base holds one row, far from the FAQ (cosine 0.3 to axis 6): below FAQ_AUDIT_KNOWLEDGE_MIN_SCORE.
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(6, 0.3) });
    const old = await faq(6, {
      question: 'Unrelated old one [axis6]?',
      createdAt: new Date(NOW.getTime() - 400 * DAY),
      lastVerifiedDate: new Date(NOW.getTime() - 400 * DAY),
    });
    const run = await runFaqAudit(t.ctx);
    expect(run.items.find((i) => i.faqId === old.id)).toMatchObject({
      verdict: 'stale',
      flagged: true,
      knowledgeSearch: 'ok',
      sources: [],
    });
    expect(fake.calls).toHaveLength(0);
  });

  it('a provider failure records skipped with the error, flags nothing and leaves lastCheckedAt for the next run', async () => {
    const f = await faq(4);
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(4, 0.9) });
    fake.failNext(500, 2); // the first attempt and its one retry (AI_MAX_RETRIES 1)
    const run = await runFaqAudit(t.ctx);
    expect(run.items[0]).toMatchObject({ verdict: 'skipped', flagged: false, checked: false });
    expect(run.items[0]?.error).toBeTruthy();
    expect(await reload(f.id)).toMatchObject({ reviewStatus: 'approved', lastCheckedAt: null });
    const [pr] = await t.ctx.db.select().from(pipelineResults);
    expect(pr).toMatchObject({ verdict: 'skipped', flagged: false });
    expect(typeof pr?.metadata.error).toBe('string');
    // The stats count the run the way its answer does: a FAQ the provider could not assess was not checked.
    expect((await auditStats(t.ctx, {})).lastRun).toMatchObject({ checked: run.checked, flagged: 0 });
    expect(run.checked).toBe(0);
  });

  it('stops between FAQs when the worker stops: a provider call it cut short is not recorded, and the job fails for its retry', async () => {
    const first = await faq(6, { question: 'First in the batch [axis6]?' });
    const second = await faq(6, { question: 'Second in the batch [axis6]?' });
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(6, 0.9) });
    const stopping = new AbortController();
    // The worker stops while the first FAQ's provider call is out.
    fake.reply = () => {
      stopping.abort();
      return { score: 0.3, confidence: 0.9, reason: 'Contradicts.', citedSourceIds: [], evidence: [] };
    };
    const job = JOBS.find((j) => j.name === 'content.faq-audit') as (typeof JOBS)[number];
    await expect(job.handler(t.ctx, {}, { id: 'job-1', retryCount: 0, signal: stopping.signal })).rejects.toThrow(
      /stopped after 0 FAQs; the retry goes on/,
    );
    expect(fake.calls).toHaveLength(1);
    expect(await t.ctx.db.select().from(pipelineResults)).toEqual([]);
    for (const f of [first, second])
      expect(await reload(f.id)).toMatchObject({ reviewStatus: 'approved', lastCheckedAt: null, reviewCycle: 0 });
    // The retry audits both.
    const retried = await job.handler(t.ctx, {}, { id: 'job-1', retryCount: 1 });
    expect((retried as { flagged: number }).flagged).toBe(2);
  });

  it('low AI confidence: skipped, not flagged, checked', async () => {
    const f = await faq(5);
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(5, 0.9) });
    fake.reply = () => ({ score: 0.1, confidence: 0.2, reason: 'Unsure.', citedSourceIds: [], evidence: [] });
    const run = await runFaqAudit(t.ctx);
    expect(run.items[0]).toMatchObject({ verdict: 'skipped', flagged: false, checked: true });
    expect(await reload(f.id)).toMatchObject({ reviewStatus: 'approved', lastCheckedAt: NOW });
  });

  it('a matching meeting insight newer than the last verification turns a correct verdict into drift', async () => {
    const f = await faq(6, { question: 'When does the library open on weekdays [axis6]?' });
    const m = await meeting('Staff sync');
    const ins = await insight(m?.id as string, 'Library weekday opening time?', 'It opens at 10.', NOW);
    fake.reply = () => ({ score: 0.9, confidence: 0.8, reason: 'Looks right.', citedSourceIds: [ins?.id], evidence: [] });
    const run = await runFaqAudit(t.ctx);
    expect(run.items[0]).toMatchObject({ verdict: 'drift_detected', flagged: true, matchedInsights: [ins?.id] });
    expect((await reload(f.id)).reviewStatus).toBe('pending_review');
  });

  it('a FAQ already under review, audited by id, keeps its round: the verdict is recorded, the state and cycle stay', async () => {
    const f = await faq(9, { question: 'Under review already [axis9]?', reviewStatus: 'update_requested', reviewCycle: 2 });
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(9, 0.95) });
    fake.reply = () => ({ score: 0.3, confidence: 0.9, reason: 'Contradicted.', citedSourceIds: [], evidence: [] });
    const run = await runFaqAudit(t.ctx, { faqId: f.id });
    expect(run.items[0]).toMatchObject({ verdict: 'contradiction', flagged: true });
    expect(await reload(f.id)).toMatchObject({ reviewStatus: 'update_requested', reviewCycle: 2, lastCheckedAt: NOW });
  });

  it('a flag by the audit starts a new round: the escalation of the earlier round is cleared', async () => {
    // A verified FAQ still carrying the escalatedAt of a round that ended (escalated, then verified).
    const f = await faq(10, {
      question: 'Escalated once [axis10]?',
      reviewStatus: 'verified',
      reviewCycle: 1,
      escalatedAt: new Date(NOW.getTime() - 5 * DAY),
    });
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(10, 0.95) });
    fake.reply = () => ({ score: 0.3, confidence: 0.9, reason: 'Contradicted.', citedSourceIds: [], evidence: [] });
    const run = await runFaqAudit(t.ctx, { faqId: f.id });
    expect(run.items[0]).toMatchObject({ verdict: 'contradiction', flagged: true });
    expect(await reload(f.id)).toMatchObject({ reviewStatus: 'pending_review', reviewCycle: 2, escalatedAt: null });
  });

  it('finds a matching insight among many others of the program (not only in the first few hundred read)', async () => {
    const m = await meeting('Many');
    await t.ctx.db.insert(confInsights).values(
      Array.from({ length: 700 }, (_, i) => ({
        meetingId: m?.id as string,
        batchId: program,
        question: `Unrelated question number ${i} about parking permits?`,
        answer: 'Ask the front desk.',
        createdAt: new Date(NOW.getTime() + i),
      })),
    );
    const match = await insight(m?.id as string, 'Canteen lunch menu vegetarian options?', 'Two every day.', new Date(NOW.getTime() - DAY));
    const found = await matchInsights(t.ctx, { question: 'Does the canteen lunch menu have vegetarian options?', batchId: program });
    expect(found.map((i) => i.id)).toEqual([match?.id]);
  });
});

describe('admin audit routes', () => {
  it('POST /admin/audit/faqs?dry_run=true writes nothing; faq_id audits one FAQ; stats and results', async () => {
    const f = await faq(7);
    const other = await faq(8, { question: 'Other [axis8]?' });
    await createKnowledge(t.ctx, { content: KNOWLEDGE, embedding: unitVector(7, 0.95) });
    fake.reply = () => ({ score: 0.7, confidence: 0.9, reason: 'Hours drifted.', citedSourceIds: [], evidence: [] });
    const dry = await t.app.inject({ method: 'POST', url: `/api/admin/audit/faqs?dry_run=true&faq_id=${f.id}`, headers: admin.headers });
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ dryRun: true, items: [{ faqId: f.id, verdict: 'drift_detected', flagged: true, resultId: null }] });
    expect((await t.ctx.db.select({ n: count() }).from(pipelineResults))[0]?.n).toBe(0);
    expect(await reload(f.id)).toMatchObject({ reviewStatus: 'approved', lastCheckedAt: null, reviewCycle: 0, flagReason: null });

    const real = await t.app.inject({ method: 'POST', url: `/api/admin/audit/faqs?faq_id=${f.id}`, headers: admin.headers });
    expect(real.json()).toMatchObject({ dryRun: false, checked: 1, flagged: 1 });
    expect((await reload(f.id)).reviewStatus).toBe('pending_review');
    expect((await reload(other.id)).lastCheckedAt).toBeNull();

    const stats = (await t.app.inject({ method: 'GET', url: '/api/admin/audit/stats', headers: admin.headers })).json();
    expect(stats).toMatchObject({
      total: 1,
      flagged: 1,
      byVerdict: { drift_detected: 1, correct: 0, contradiction: 0, stale: 0, skipped: 0 },
      openFlags: 1,
      lastRun: { checked: 1, flagged: 1, at: NOW.toISOString() },
    });
    // A program with no audit run has no last run.
    const empty = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Never audited' } });
    const scoped = await t.app.inject({ method: 'GET', url: `/api/admin/audit/stats?batchId=${empty.json().id}`, headers: admin.headers });
    expect(scoped.json()).toMatchObject({ total: 0, lastRun: null });
    const results = (
      await t.app.inject({ method: 'GET', url: '/api/admin/audit/results?verdict=drift_detected&flagged=true', headers: admin.headers })
    ).json() as {
      items: { faqId: string; reason: string }[];
      total: number;
    };
    expect(results.total).toBe(1);
    expect(results.items[0]).toMatchObject({ faqId: f.id, reason: 'Hours drifted.' });
    // The PipelineResult's own field names (spec: "Field names are exact").
    expect(results.items[0]).toMatchObject({
      pipeline: 'faq_audit',
      targetModel: 'FAQ',
      targetId: f.id,
      targetTitle: f.question,
      verdict: 'drift_detected',
      flagged: true,
      metadata: { reason: 'Hours drifted.' },
    });
    const none = (
      await t.app.inject({
        method: 'GET',
        url: `/api/admin/audit/results?to=${new Date(NOW.getTime() - 1).toISOString()}`,
        headers: admin.headers,
      })
    ).json() as { total: number };
    expect(none.total).toBe(0);
    // A day is a whole UTC day: the run's day finds it, the day before does not.
    const day = NOW.toISOString().slice(0, 10);
    const dayBefore = new Date(NOW.getTime() - 86_400_000).toISOString().slice(0, 10);
    const byDay = async (q: string) =>
      ((await t.app.inject({ method: 'GET', url: `/api/admin/audit/results?${q}`, headers: admin.headers })).json() as { total: number })
        .total;
    expect(await byDay(`from=${day}&to=${day}`)).toBeGreaterThan(0);
    expect(await byDay(`to=${dayBefore}`)).toBe(0);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/admin/audit/results?verdict=bogus', headers: admin.headers }), 400);
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/admin/audit/faqs?faq_id=nope', headers: admin.headers }), 400);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/audit/faqs?faq_id=00000000-0000-4000-8000-000000000000',
        headers: admin.headers,
      }),
      404,
    );
  });

  it('access: admin only', async () => {
    for (const [method, url] of [
      ['GET', '/api/admin/audit/stats'],
      ['GET', '/api/admin/audit/results'],
      ['POST', '/api/admin/audit/faqs?dry_run=true'],
    ] as const) {
      expectProblem(await t.app.inject({ method, url }), 401);
      expectProblem(await t.app.inject({ method, url, headers: moderator.headers }), 403);
    }
  });
});
