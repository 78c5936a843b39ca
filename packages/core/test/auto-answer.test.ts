import {
  aiAnswerOutcomes,
  communityPosts,
  documentInsights,
  faqs,
  notifications,
  pipelineResults,
  teaNotifications,
  transcriptKnowledge,
} from '@cfaq/db/schema/index';
import {
  axisEmbedder,
  createKnowledge,
  createTestContext,
  createUser,
  defaultProgramId,
  type FakeAiServer,
  openaiAdapter,
  quickAiEnv,
  startFakeAiServer,
  startFakeOpenAI,
  type TestContext,
  unitVector,
} from '@cfaq/testkit';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { calibration } from '../src/auto-answer/review.js';
import { runAutoAnswer } from '../src/auto-answer/run.js';
import { sensitiveMatcher } from '../src/auto-answer/sensitive.js';
import { triage } from '../src/auto-answer/triage.js';
import { updatePost } from '../src/community/posts.js';
import type { Config } from '../src/config/schema.js';
import type { CoreContext } from '../src/context.js';
import { fixedClock } from '../src/runtime/clock.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000);
const clock = fixedClock(NOW);
// "[axisN]" in a post's text embeds it exactly on axis N; knowledge rows sit at a chosen cosine to it.
const embedder = axisEmbedder();
let t: TestContext;
let fake: FakeAiServer;
let program: string;
let author: { id: string };
let ctx: CoreContext;

const withConfig = (over: Partial<Config>): CoreContext => ({ ...t.ctx, config: { ...t.ctx.config, ...over } });

beforeAll(async () => {
  fake = await startFakeOpenAI();
  t = await createTestContext({
    clock,
    embedder,
    env: quickAiEnv(fake, 5000), // the timeout test hangs the fake twice
  });
  ctx = t.ctx;
  program = await defaultProgramId(ctx);
  author = await createUser(ctx);
});
afterAll(async () => {
  await fake.close();
  await t.close();
});
beforeEach(async () => {
  await ctx.db.delete(pipelineResults);
  await ctx.db.delete(notifications);
  await ctx.db.delete(teaNotifications);
  await ctx.db.delete(communityPosts);
  await ctx.db.delete(transcriptKnowledge);
  await ctx.db.delete(documentInsights);
  await ctx.db.delete(faqs);
  fake.calls.length = 0;
  fake.delayMs = 0;
  fake.reply = (call) => ({ answer: `Answer to: ${call.prompt.split('\n')[0]}`, answerable: true });
  embedder.failing = false;
});

async function post(title: string, body = 'Some details about my question.', opts: Partial<typeof communityPosts.$inferInsert> = {}) {
  const [row] = await ctx.db
    .insert(communityPosts)
    .values({ batchId: program, authorId: author.id, title, body, createdAt: hoursAgo(3), ...opts })
    .returning();
  return row as typeof communityPosts.$inferSelect;
}
const reload = async (id: string) =>
  (await ctx.db.select().from(communityPosts).where(eq(communityPosts.id, id)))[0] as typeof communityPosts.$inferSelect;
const countOf = async (table: typeof pipelineResults | typeof notifications | typeof teaNotifications) =>
  (await ctx.db.select({ n: count() }).from(table))[0]?.n;

describe('triage rows at their exact boundaries', () => {
  const th = { approve: 0.85, suggest: 0.6 };
  it('0.85 approves, just below suggests, 0.60 suggests, just below escalates, sensitive always escalates', () => {
    expect(triage(0.85, false, th)).toBe('approved');
    expect(triage(0.8499999, false, th)).toBe('suggested');
    expect(triage(0.6, false, th)).toBe('suggested');
    expect(triage(0.5999999, false, th)).toBe('escalated');
    expect(triage(0.99, true, th)).toBe('escalated');
    expect(triage(null, false, th)).toBe('escalated');
  });
  it('the default sensitive topics match their words and leave ordinary text alone', () => {
    const m = sensitiveMatcher(t.ctx.config.AUTO_ANSWER_SENSITIVE_TOPICS);
    expect(m.match('I want to hurt myself')?.topic).toBe('self-harm');
    expect(m.match('Which medication helps with this?')?.topic).toBe('medical');
    expect(m.match('Should I get a lawyer?')?.topic).toBe('legal');
    expect(m.match('Someone keeps harassing me in the chat')?.topic).toBe('harassment');
    expect(m.match('I was charged twice for the course')?.topic).toBe('payment disputes');
    expect(m.match('Please delete my data')?.topic).toBe('personal data');
    expect(m.match('How do I reset my password?')).toBeNull();
    expect(m.match('Where is the courtyard?')).toBeNull();
  });
});

describe('the auto-answer run', () => {
  it('a knowledge match at 0.95 (confidence 0.855) auto-approves: post fields, notification, tea drop, PipelineResult', async () => {
    const k = await createKnowledge(ctx, {
      kind: 'document_insight',
      title: 'Refunds',
      content: 'Refunds take 5 days.',
      embedding: unitVector(10, 0.95),
    });
    const p = await post('How long do refunds take? [axis10]');
    const report = await runAutoAnswer(ctx, { trigger: 'schedule' });
    expect(report.counts).toMatchObject({ approved: 1, suggested: 0, escalated: 0 });
    const after = await reload(p.id);
    expect(after).toMatchObject({
      status: 'answered',
      aiAnswerStatus: 'approved',
      aiAnswerSource: 'faq_knowledge',
      aiAnswerAttempts: 1,
      aiAnswerSources: [k.id],
      aiAnswerClaim: null,
    });
    expect(after.aiAnswerConfidence).toBeCloseTo(0.855, 3);
    expect(after.aiAnswer).toMatch(/^Answer to: Question: How long do refunds take/);
    expect(after.lastCheckedAt?.toISOString()).toBe(NOW.toISOString());
    expect(fake.calls[0]?.prompt).toContain('Refunds take 5 days.');
    const [n] = await ctx.db.select().from(notifications);
    expect(n).toMatchObject({ userId: author.id, kind: 'post_answered' });
    const [drop] = await ctx.db.select().from(teaNotifications);
    expect(drop).toMatchObject({ userId: author.id, kind: 'post_answered', refId: p.id });
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r).toMatchObject({ pipeline: 'auto_answer', targetId: p.id, verdict: 'approved', flagged: false, sources: [k.id] });
    expect(r?.metadata).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      promptVersion: expect.any(String),
      tokens: { inputTokens: 11, outputTokens: 7 },
    });
    expect(((r?.metadata.similarities ?? []) as { score: number }[])[0]?.score).toBeCloseTo(0.95, 4);
    expect(await ctx.db.select().from(aiAnswerOutcomes).where(eq(aiAnswerOutcomes.postId, p.id))).toHaveLength(1);
  });

  it("an answer of the pipeline's own clears an earlier admin review (it was of the old answer)", async () => {
    await createKnowledge(ctx, { embedding: unitVector(11, 0.95) });
    const p = await post('Escalated by an admin before [axis11]');
    await ctx.db
      .update(communityPosts)
      .set({ aiAnswerStatus: 'escalated', aiAnswerReviewedAt: new Date(NOW.getTime() - 86_400_000), aiAnswerReviewedBy: author.id })
      .where(eq(communityPosts.id, p.id));
    await runAutoAnswer(ctx, { trigger: 'admin', postId: p.id });
    expect(await reload(p.id)).toMatchObject({ aiAnswerStatus: 'approved', aiAnswerReviewedAt: null, aiAnswerReviewedBy: null });
  });

  it('a knowledge match at 0.90 (confidence 0.81) is suggested and logged flagged, the post stays open', async () => {
    await createKnowledge(ctx, { embedding: unitVector(20, 0.9) });
    const p = await post('A question [axis20]');
    await runAutoAnswer(ctx, { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({ status: 'open', aiAnswerStatus: 'suggested', aiAnswerSource: 'faq_knowledge' });
    expect(after.aiAnswerConfidence).toBeCloseTo(0.81, 3);
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r).toMatchObject({ verdict: 'suggested', flagged: true });
    expect(await countOf(notifications)).toBe(0);
  });

  it('no match: generation with the three most recent approved FAQs, confidence 0.62, suggested', async () => {
    for (let i = 1; i <= 4; i++)
      await ctx.db
        .insert(faqs)
        .values({ batchId: program, question: `FAQ question ${i}`, answer: `FAQ answer ${i}`, createdAt: hoursAgo(100 - i) });
    await ctx.db
      .insert(faqs)
      .values({ batchId: program, question: 'Draft FAQ', answer: 'draft', reviewStatus: 'draft', createdAt: hoursAgo(1) });
    const p = await post('How do I change my display name?');
    await runAutoAnswer(ctx, { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({
      aiAnswerStatus: 'suggested',
      aiAnswerConfidence: expect.closeTo(0.62, 5),
      aiAnswerSource: 'ai_generated',
    });
    const prompt = fake.calls[0]?.prompt ?? '';
    expect(prompt).toContain('FAQ question 4');
    expect(prompt).toContain('FAQ question 2');
    expect(prompt).not.toContain('FAQ question 1');
    expect(prompt).not.toContain('Draft FAQ');
  });

  it('sensitive text escalates even with a perfect knowledge match, and is never sent to the provider', async () => {
    await createKnowledge(ctx, { embedding: unitVector(30, 1) });
    const p = await post('Which medication should I take? [axis30]');
    await runAutoAnswer(ctx, { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({ aiAnswerStatus: 'escalated', status: 'open', aiAnswerEscalatedReason: 'sensitive topic: medical' });
    expect(fake.calls).toHaveLength(0);
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r).toMatchObject({ verdict: 'escalated', flagged: true });
  });

  it('no provider configured: escalated with the reason, no text invented', async () => {
    const none = withConfig({ OPENAI_API_KEY: undefined });
    const p = await post('How do I export my notes?');
    await runAutoAnswer(none, { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({ aiAnswerStatus: 'escalated', aiAnswer: null });
    expect(after.aiAnswerEscalatedReason).toMatch(/^no provider configured/);
  });

  it('a knowledge match needs no provider: the source text is the answer, triaged at its confidence, and the result says why', async () => {
    const k = await createKnowledge(ctx, { title: 'Refunds', content: 'Refunds take 5 days.', embedding: unitVector(12, 0.99) });
    const p = await post('How long do refunds take? [axis12]');
    await runAutoAnswer(withConfig({ OPENAI_API_KEY: undefined }), { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({
      aiAnswerStatus: 'approved',
      aiAnswer: 'Refunds take 5 days.',
      aiAnswerSource: 'faq_knowledge',
      aiAnswerSources: [k.id],
    });
    expect(after.aiAnswerConfidence).toBeCloseTo(0.891, 3);
    expect(fake.calls).toHaveLength(0);
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r?.metadata).toMatchObject({
      answerFrom: 'source_text',
      provider: null,
      providerError: expect.stringMatching(/^no provider configured/),
    });
  });

  it('a knowledge match whose provider call fails after its retries keeps the source text, and records the failure', async () => {
    await createKnowledge(ctx, { title: 'Refunds', content: 'Refunds take 5 days.', embedding: unitVector(13, 0.9) });
    const p = await post('How long do refunds take? [axis13]');
    fake.failNext(500, 2); // AI_MAX_RETRIES 1: both attempts fail
    await runAutoAnswer(ctx, { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({ aiAnswerStatus: 'suggested', aiAnswer: 'Refunds take 5 days.', aiAnswerSource: 'faq_knowledge' });
    expect(fake.calls).toHaveLength(2);
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r?.metadata).toMatchObject({
      answerFrom: 'source_text',
      attempts: 2,
      providerError: expect.stringMatching(/failed after 2 attempts: 500/),
    });
  });

  it('a knowledge match the model says does not answer the question is held for review, not published', async () => {
    await createKnowledge(ctx, { title: 'Refunds', content: 'Refunds take 5 days.', embedding: unitVector(14, 0.99) });
    const p = await post('Can I get a refund for a cancelled trip? [axis14]');
    fake.reply = () => ({ answer: 'The sources do not cover cancelled trips.', answerable: false });
    await runAutoAnswer(ctx, { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({ status: 'open', aiAnswerStatus: 'suggested', aiAnswer: 'Refunds take 5 days.' });
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r).toMatchObject({ verdict: 'suggested', flagged: true });
    expect(r?.metadata).toMatchObject({ answerFrom: 'source_text', providerNote: expect.stringMatching(/insufficient/) });
  });

  it('a knowledge match the model declines with an empty answer is suggested after one call, not published as a failure', async () => {
    // The natural refusal reply. It used to break the schema (answer minLength 1): retried, counted as a
    // provider failure, and the failure path then auto-approved the source text.
    await createKnowledge(ctx, { title: 'Refunds', content: 'Refunds take 5 days.', embedding: unitVector(15, 0.99) });
    const p = await post('Can I get a refund for a cancelled trip? [axis15]');
    fake.reply = () => ({ answer: '', answerable: false });
    const report = await runAutoAnswer(ctx, { trigger: 'schedule' });
    expect(report.counts).toMatchObject({ approved: 0, suggested: 1 });
    const after = await reload(p.id);
    expect(after).toMatchObject({ status: 'open', aiAnswerStatus: 'suggested', aiAnswer: 'Refunds take 5 days.' });
    expect(fake.calls).toHaveLength(1);
    expect(await countOf(notifications)).toBe(0);
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r).toMatchObject({ verdict: 'suggested', flagged: true });
    expect(r?.metadata).toMatchObject({ answerFrom: 'source_text', attempts: 1, providerNote: expect.stringMatching(/insufficient/) });
    expect(r?.metadata).not.toHaveProperty('providerError');
  });

  it('a knowledge match whose answer is blank though answerable is true: a malformed reply, retried', async () => {
    await createKnowledge(ctx, { title: 'Refunds', content: 'Refunds take 5 days.', embedding: unitVector(16, 0.9) });
    const p = await post('How long do refunds take? [axis16]');
    fake.reply = () => ({ answer: '   ', answerable: true });
    await runAutoAnswer(ctx, { trigger: 'schedule' });
    expect(fake.calls).toHaveLength(2);
    expect(await reload(p.id)).toMatchObject({ aiAnswer: 'Refunds take 5 days.', aiAnswerSource: 'faq_knowledge' });
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r?.metadata).toMatchObject({
      attempts: 2,
      providerError: expect.stringMatching(/malformed reply: .*blank when answerable is true/),
    });
  });

  describe('a provider refusal (OpenAI refusal content)', () => {
    let refusing: FakeAiServer;
    beforeAll(async () => {
      refusing = await startFakeAiServer({
        ...openaiAdapter,
        success(call, text, value, usage) {
          const body = openaiAdapter.success(call, text, value, usage) as { output: { content: unknown[] }[] };
          (body.output[0] as { content: unknown[] }).content = [{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }];
          return body;
        },
      });
    });
    afterAll(() => refusing.close());
    beforeEach(() => {
      refusing.calls.length = 0;
    });
    const viaRefusing = () => withConfig({ OPENAI_API_KEY: refusing.apiKey, OPENAI_BASE_URL: refusing.baseUrl });

    it('on a knowledge match is the model declining: suggested at most after one call, never the source text published', async () => {
      await createKnowledge(ctx, { title: 'Refunds', content: 'Refunds take 5 days.', embedding: unitVector(17, 0.99) });
      const p = await post('How long do refunds take? [axis17]');
      const report = await runAutoAnswer(viaRefusing(), { trigger: 'schedule' });
      expect(report.counts).toMatchObject({ approved: 0, suggested: 1 });
      expect(report.items[0]?.reason).toBe('the provider refused to answer from the knowledge sources; held for review');
      const after = await reload(p.id);
      expect(after).toMatchObject({ status: 'open', aiAnswerStatus: 'suggested', aiAnswer: 'Refunds take 5 days.' });
      expect(refusing.calls).toHaveLength(1);
      expect(await countOf(notifications)).toBe(0);
      const [r] = await ctx.db.select().from(pipelineResults);
      expect(r).toMatchObject({ verdict: 'suggested', flagged: true });
      expect(r?.metadata).toMatchObject({ answerFrom: 'source_text', failure: 'refused', providerNote: expect.stringMatching(/refused/) });
      expect(r?.metadata).not.toHaveProperty('providerError');
    });

    it('on the generation path escalates with a reason saying it was refused, after one call', async () => {
      const p = await post('How do I export my notes?');
      await runAutoAnswer(viaRefusing(), { trigger: 'schedule' });
      const after = await reload(p.id);
      expect(after).toMatchObject({ aiAnswerStatus: 'escalated', aiAnswer: null });
      expect(after.aiAnswerEscalatedReason).toBe('openai refused to answer: "I\'m sorry, I can\'t help with that."');
      expect(refusing.calls).toHaveLength(1);
    });
  });

  it('a provider error quoting the API key is stored without it (escalated reason, PipelineResult, run report)', async () => {
    const key = 'plainkey-NOSHAPE-4242';
    // An OpenAI-compatible gateway that answers 401 "bad key <the key>".
    let sent = '';
    const gateway = await startFakeAiServer({
      ...openaiAdapter,
      authorized: (req, k) => {
        sent = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
        return openaiAdapter.authorized(req, k);
      },
      error: (status, message) => openaiAdapter.error(status, status === 401 ? `bad key ${sent}` : message),
    });
    try {
      await createKnowledge(ctx, { title: 'Refunds', content: 'Refunds take 5 days.', embedding: unitVector(18, 0.9) });
      const matched = await post('How long do refunds take? [axis18]');
      const generated = await post('How do I export my notes?');
      const report = await runAutoAnswer(withConfig({ OPENAI_API_KEY: key, OPENAI_BASE_URL: gateway.baseUrl }), { trigger: 'schedule' });
      const stored = JSON.stringify({
        report,
        posts: [await reload(matched.id), await reload(generated.id)],
        results: await ctx.db.select().from(pipelineResults),
      });
      expect(stored).not.toContain(key);
      expect((await reload(generated.id)).aiAnswerEscalatedReason).toBe('openai call failed after 1 attempt: 401: bad key [redacted]');
      expect(stored).toContain('bad key [redacted]');
    } finally {
      await gateway.close();
    }
  });

  it('a knowledge-search failure falls back to generation', async () => {
    embedder.failing = true;
    const p = await post('How do I export my notes?');
    await runAutoAnswer(ctx, { trigger: 'schedule' });
    const after = await reload(p.id);
    expect(after).toMatchObject({ aiAnswerStatus: 'suggested', aiAnswerSource: 'ai_generated' });
    const [r] = await ctx.db.select().from(pipelineResults);
    expect(r?.metadata).toMatchObject({ knowledgeSearch: 'failed' });
  });

  it('timeout, 429 and malformed replies are retried, then the post escalates and the run goes on', async () => {
    const a = await post('First question', 'body a', { createdAt: hoursAgo(5) });
    const b = await post('Second question', 'body b', { createdAt: hoursAgo(4) });
    const c = await post('Third question', 'body c', { createdAt: hoursAgo(3) });
    const d = await post('Fourth question', 'body d', { createdAt: hoursAgo(2.5) });
    const serial = withConfig({ AUTO_ANSWER_CONCURRENCY: 1, AI_TIMEOUT_MS: 1500 });
    fake.hangNext(2); // a: timeout twice
    fake.failNext(429, 2); // b: 429 twice
    fake.malformedNext(2); // c: malformed twice
    const report = await runAutoAnswer(serial, { trigger: 'schedule' });
    expect(report.counts).toMatchObject({ escalated: 3, suggested: 1, errors: 0 });
    expect((await reload(a.id)).aiAnswerEscalatedReason).toMatch(/did not answer in time/);
    expect((await reload(b.id)).aiAnswerEscalatedReason).toMatch(/429/);
    expect((await reload(c.id)).aiAnswerEscalatedReason).toMatch(/malformed/);
    expect((await reload(d.id)).aiAnswerStatus).toBe('suggested');
    expect(fake.calls).toHaveLength(7);
  });

  it('eligibility: open, null or escalated, old enough, outside the cooldown, at most AUTO_ANSWER_BATCH_SIZE', async () => {
    const young = await post('Too young', 'b', { createdAt: hoursAgo(1.9) });
    const justOld = await post('Exactly two hours', 'b', { createdAt: hoursAgo(2) });
    await post('Answered', 'b', { status: 'answered' });
    await post('Suggested', 'b', { aiAnswerStatus: 'suggested' });
    await post('Rejected', 'b', { aiAnswerStatus: 'rejected' });
    const cooling = await post('Cooling', 'b', { aiAnswerStatus: 'escalated', aiAnswerAttemptedAt: hoursAgo(23) });
    const cooled = await post('Cooled', 'b', { aiAnswerStatus: 'escalated', aiAnswerAttemptedAt: hoursAgo(24), aiAnswerAttempts: 1 });
    // Escalated by staff (reviewed): left to a human, however long ago the last attempt was.
    const staffEscalated = await post('Staff escalated', 'b', {
      aiAnswerStatus: 'escalated',
      aiAnswerAttemptedAt: hoursAgo(48),
      aiAnswerAttempts: 1,
      aiAnswerReviewedAt: hoursAgo(30),
    });
    const report = await runAutoAnswer(ctx, { trigger: 'schedule' });
    expect(report.items.map((i) => i.postId).sort()).toEqual([justOld.id, cooled.id].sort());
    expect((await reload(cooled.id)).aiAnswerAttempts).toBe(2);
    expect((await reload(young.id)).aiAnswerAttempts).toBe(0);
    expect((await reload(cooling.id)).aiAnswerAttempts).toBe(0);
    expect(await reload(staffEscalated.id)).toMatchObject({ aiAnswerAttempts: 1, aiAnswerStatus: 'escalated' });
    // A changed question is a new one: the staff escalation no longer holds it back.
    await updatePost(ctx, { id: author.id, role: 'user' }, staffEscalated.id, { title: 'Staff escalated, asked again' });
    const again = await runAutoAnswer(ctx, { trigger: 'schedule' });
    expect(again.items.map((i) => i.postId)).toContain(staffEscalated.id);

    for (let i = 0; i < 5; i++) await post(`Batch ${i}`, 'b', { createdAt: hoursAgo(10 - i) });
    const small = await runAutoAnswer(withConfig({ AUTO_ANSWER_BATCH_SIZE: 3 }), { trigger: 'schedule' });
    expect(small.items.map((i) => i.title).sort()).toEqual(['Batch 0', 'Batch 1', 'Batch 2']);
  });

  it('a dry run returns every verdict and writes nothing', async () => {
    await createKnowledge(ctx, { embedding: unitVector(40, 0.99) });
    const approved = await post('Knowledge question [axis40]');
    await post('Generated question');
    await post('My lawyer says I should ask');
    const before = {
      results: await countOf(pipelineResults),
      notes: await countOf(notifications),
      tea: await countOf(teaNotifications),
      posts: JSON.stringify(await ctx.db.select().from(communityPosts).orderBy(communityPosts.id)),
    };
    const report = await runAutoAnswer(ctx, { trigger: 'dry_run', dryRun: true });
    expect(report.items.map((i) => i.verdict).sort()).toEqual(['approved', 'escalated', 'suggested']);
    expect(report.items.find((i) => i.postId === approved.id)?.outcome).toBe('dry_run');
    expect(fake.calls).toHaveLength(0);
    expect({
      results: await countOf(pipelineResults),
      notes: await countOf(notifications),
      tea: await countOf(teaNotifications),
      posts: JSON.stringify(await ctx.db.select().from(communityPosts).orderBy(communityPosts.id)),
    }).toEqual(before);
  });

  it('two runs at once never answer one post twice', async () => {
    fake.delayMs = 30;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await post(`Concurrent ${i}`)).id);
    const [r1, r2] = await Promise.all([
      runAutoAnswer(withConfig({ AUTO_ANSWER_CONCURRENCY: 3 }), { trigger: 'schedule' }),
      runAutoAnswer(withConfig({ AUTO_ANSWER_CONCURRENCY: 3 }), { trigger: 'admin', all: true }),
    ]);
    expect(r1.processed + r2.processed).toBe(12);
    const seen = [...r1.items, ...r2.items].map((i) => i.postId).sort();
    expect(seen).toEqual([...ids].sort());
    // Every post went to the provider exactly once (a retry after a slow answer would repeat the same prompt).
    expect(new Set(fake.calls.map((c) => c.prompt)).size).toBe(12);
    expect(await countOf(pipelineResults)).toBe(12);
    const attempts = (await ctx.db.select({ a: communityPosts.aiAnswerAttempts }).from(communityPosts)).map((r) => r.a);
    expect(attempts.every((a) => a === 1)).toBe(true);
  });
});

describe('calibration', () => {
  it('bands the confidence as published (0.90 in 0.90-0.95, not below) and counts outcomes without one apart', async () => {
    const p = await post('Calibrated');
    const out = (confidence: number | null, publishedBy: 'auto' | 'admin', demoted = false) => ({
      postId: p.id,
      batchId: program,
      confidence,
      publishedBy,
      publishedAt: NOW,
      demotedAt: demoted ? NOW : null,
    });
    // confidence is a real: 0.9 reads back as 0.89999998, 0.95 as 0.94999999.
    await ctx.db
      .insert(aiAnswerOutcomes)
      .values([
        out(0.9, 'auto', true),
        out(0.9, 'auto'),
        out(0.85, 'auto'),
        out(0.8999, 'auto'),
        out(0.95, 'auto'),
        out(1, 'auto'),
        out(0.62, 'admin'),
        out(null, 'admin', true),
      ]);
    const auto = await calibration(ctx, {});
    expect(auto.bands.map((b) => [b.band, b.published, b.demoted])).toEqual([
      ['0.85-0.90', 2, 0],
      ['0.90-0.95', 2, 1],
      ['0.95-1.00', 2, 0],
    ]);
    expect(auto.unscored).toEqual({ published: 0, demoted: 0 });
    // A manual approval without a confidence is in no band (it was counted in 0.00-0.05).
    const all = await calibration(ctx, { publishedBy: 'all' });
    expect(all.bands.map((b) => b.band)).toEqual(['0.60-0.65', '0.85-0.90', '0.90-0.95', '0.95-1.00']);
    expect(all.unscored).toEqual({ published: 1, demoted: 1 });
    expect(all.totals).toEqual({ published: 7, demoted: 1 });
  });
});
