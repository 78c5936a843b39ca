import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixedClock, type MemoryJobQueue, runAutoAnswer } from '@cfaq/core';
import {
  adminLogs,
  aiAnswerOutcomes,
  aiConfigs,
  batches,
  comments,
  communityPosts,
  notifications,
  pipelineResults,
  teaNotifications,
} from '@cfaq/db/schema/index';
import {
  axisEmbedder,
  createKnowledge,
  defaultProgramId,
  type FakeAiServer,
  fakeProviderEnv,
  startFakeOpenAI,
  unitVector,
} from '@cfaq/testkit';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000);
const embedder = axisEmbedder();
type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let fake: FakeAiServer;
let admin: Who;
let author: Who;
let voters: Who[];
let program: string;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.reply = () => ({ answer: 'Generated answer.', answerable: true, ok: true });
  t = await createTestApp({
    clock: fixedClock(NOW),
    embedder,
    env: { ...GENEROUS_LIMITS, ...fakeProviderEnv('openai', fake), AI_RETRY_BASE_MS: '1' },
  });
  [admin, author, ...voters] = await Promise.all([
    t.signIn('admin'),
    t.signIn('user'),
    t.signIn('user'),
    t.signIn('user'),
    t.signIn('user'),
  ]);
  program = await defaultProgramId(t.ctx);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const inject = (method: 'GET' | 'POST' | 'PATCH', url: string, who?: Who, payload?: unknown) =>
  t.app.inject({ method, url, ...(who ? { headers: who.headers } : {}), ...(payload !== undefined ? { payload: payload as object } : {}) });
async function post(title: string, extra: Partial<typeof communityPosts.$inferInsert> = {}) {
  const [row] = await t.ctx.db
    .insert(communityPosts)
    .values({ batchId: program, authorId: author.id, title, body: 'Details.', createdAt: hoursAgo(3), ...extra })
    .returning({ id: communityPosts.id });
  return row?.id as string;
}
const reload = async (id: string) =>
  (await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, id)))[0] as typeof communityPosts.$inferSelect;
const autoAnswerLogs = async () =>
  (await t.ctx.db.select().from(adminLogs).orderBy(adminLogs.createdAt)).filter((l) => l.action.startsWith('auto_answer.run'));
const rows = async () => ({
  results: (await t.ctx.db.select({ n: count() }).from(pipelineResults))[0]?.n,
  notifications: (await t.ctx.db.select({ n: count() }).from(notifications))[0]?.n,
  tea: (await t.ctx.db.select({ n: count() }).from(teaNotifications))[0]?.n,
  posts: JSON.stringify(await t.ctx.db.select().from(communityPosts).orderBy(communityPosts.id)),
});

describe('POST /admin/community/auto-answer', () => {
  it('dry_run=true returns every verdict and writes nothing; thresholds add a what-if over stored results', async () => {
    await createKnowledge(t.ctx, { embedding: unitVector(50, 0.99) });
    const k = await post('Knowledge question [axis50]');
    const g = await post('Generated question');
    const before = await rows();
    const res = await inject('POST', '/api/admin/community/auto-answer?dry_run=true', admin);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.dryRun).toBe(true);
    const verdicts = Object.fromEntries(body.items.map((i: { postId: string; verdict: string }) => [i.postId, i.verdict]));
    expect(verdicts).toEqual({ [k]: 'approved', [g]: 'suggested' });
    expect(await rows()).toEqual(before);
    expect(fake.calls).toHaveLength(0);
    // A dry run changes nothing, so it writes no admin-log row either.
    expect(await autoAnswerLogs()).toEqual([]);

    const whatIf = await inject('POST', '/api/admin/community/auto-answer?dry_run=true&approveThreshold=0.6', admin);
    expect(
      whatIf
        .json()
        .items.map((i: { verdict: string }) => i.verdict)
        .sort(),
    ).toEqual(['approved', 'approved']);
    expect(whatIf.json().whatIf).toMatchObject({ thresholds: { approve: 0.6, suggest: 0.6 } });
  });

  it('post_id answers that post now; no flag enqueues a worker run (202)', async () => {
    const id = await post('Young question', { createdAt: hoursAgo(0.1) });
    const res = await inject('POST', `/api/admin/community/auto-answer?post_id=${id}`, admin);
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toMatchObject([{ postId: id, verdict: 'suggested', outcome: 'written' }]);
    expect((await reload(id)).aiAnswerStatus).toBe('suggested');
    // Admin writes are audit-logged: the post_id run with its outcome.
    const [runLog] = await autoAnswerLogs();
    expect(runLog).toMatchObject({
      actorId: admin.id,
      action: 'auto_answer.run',
      targetType: 'CommunityPost',
      targetId: id,
      batchId: program,
      details: { runId: res.json().runId, outcome: 'written', verdict: 'suggested', source: 'ai_generated' },
    });
    expect(runLog?.details.confidence).toBeCloseTo(0.62, 5);

    const queued = await inject('POST', '/api/admin/community/auto-answer?all=true', admin);
    expect(queued.statusCode).toBe(202);
    expect(queued.json()).toMatchObject({ queued: true, all: true });
    expect((t.jobs as MemoryJobQueue).sent.at(-1)).toMatchObject({
      name: 'pipeline.auto-answer',
      payload: { trigger: 'admin', all: true },
    });
    // ... and the enqueued run with its job id.
    const queuedLog = (await autoAnswerLogs()).at(-1);
    expect(queuedLog).toMatchObject({
      actorId: admin.id,
      action: 'auto_answer.run_queued',
      targetType: 'Job',
      details: { jobId: queued.json().jobId, queue: 'pipeline.auto-answer', all: true, batchId: null },
    });
    expect(queuedLog?.targetId).toBe(queued.json().jobId);
    expect(await autoAnswerLogs()).toHaveLength(2);

    expectProblem(await inject('POST', '/api/admin/community/auto-answer?post_id=nope', admin), 400);
    expectProblem(await inject('POST', '/api/admin/community/auto-answer?approveThreshold=2', admin), 400);
    // Crossed thresholds: refused like the settings are at start, naming the one given.
    const crossed = expectProblem(
      await inject('POST', '/api/admin/community/auto-answer?dry_run=true&approveThreshold=0.5&suggestThreshold=0.7', admin),
      400,
    );
    expect(crossed.errors?.[0]?.path).toBe('query.suggestThreshold');
    const low = expectProblem(await inject('POST', '/api/admin/community/auto-answer?dry_run=true&approveThreshold=0.5', admin), 400);
    expect(low.errors?.[0]?.path).toBe('query.approveThreshold');
  });
});

describe('review queue and review actions', () => {
  it('lists suggested and escalated answers; approve publishes the manual answer and notifies; other moves are 422', async () => {
    const s = await post('Suggested one', {
      aiAnswerStatus: 'suggested',
      aiAnswer: 'Draft text',
      aiAnswerConfidence: 0.7,
      aiAnswerSource: 'ai_generated',
      aiAnswerSuggestedAt: NOW,
    });
    const e = await post('Escalated one', {
      aiAnswerStatus: 'escalated',
      aiAnswerEscalatedReason: 'sensitive topic: legal',
      aiAnswerEscalatedAt: NOW,
    });
    const q = await inject('GET', '/api/admin/auto-answer/queue', admin);
    expect(q.statusCode).toBe(200);
    const items = q.json().items as { postId: string; answer: string | null; reason: string | null; confidence: number | null }[];
    expect(items.find((i) => i.postId === s)).toMatchObject({ answer: 'Draft text', confidence: 0.7 });
    expect(items.find((i) => i.postId === e)).toMatchObject({ reason: 'sensitive topic: legal' });
    // The spec's CommunityPost names too; escalatedAt is the post escalation's (none here), not the AI answer's.
    expect(items.find((i) => i.postId === s)).toMatchObject({
      aiAnswer: 'Draft text',
      aiAnswerConfidence: 0.7,
      aiAnswerSource: 'ai_generated',
    });
    expect(items.find((i) => i.postId === e)).toMatchObject({
      aiAnswerEscalatedReason: 'sensitive topic: legal',
      aiAnswerEscalatedAt: NOW.toISOString(),
      escalationStatus: 'none',
      escalatedAt: null,
    });
    const only = await inject('GET', '/api/admin/auto-answer/queue?status=escalated&limit=100', admin);
    expect(only.json().items.every((i: { aiAnswerStatus: string }) => i.aiAnswerStatus === 'escalated')).toBe(true);

    // Staff-only: the public view of a suggested post shows no AI text.
    const pub = await inject('GET', `/api/community/posts/${s}`);
    expect(pub.json().aiAnswer).toBeNull();

    const approve = await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'approve', manualAnswer: 'Reviewed text' });
    expect(approve.statusCode).toBe(200);
    expect(approve.json()).toMatchObject({
      aiAnswerStatus: 'approved',
      aiAnswer: 'Reviewed text',
      aiAnswerSource: 'manual',
      status: 'answered',
      aiAnswerReviewedBy: admin.id,
    });
    // The model's 0.7 was for its own text: a staff-written answer has no confidence, and calibration has it unscored.
    expect((await reload(s)).aiAnswerConfidence).toBeNull();
    expect((await t.ctx.db.select().from(aiAnswerOutcomes).where(eq(aiAnswerOutcomes.postId, s)))[0]?.confidence).toBeNull();
    expect(await t.ctx.db.select().from(notifications).where(eq(notifications.userId, author.id))).not.toHaveLength(0);
    expect((await inject('GET', `/api/community/posts/${s}`)).json().aiAnswer).toBe('Reviewed text');
    expectProblem(await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'approve' }), 422, 'INVALID_REVIEW_TRANSITION');
    // Taken down after staff verified a comment: the post keeps its human answer and stays answered.
    const [verified] = await t.ctx.db.insert(comments).values({ postId: s, authorId: admin.id, body: 'A person answers.' }).returning();
    const verify = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${s}/comments/${verified?.id}/verify`,
      headers: admin.headers,
    });
    expect(verify.statusCode).toBe(200);
    expect((await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'reject' })).json()).toMatchObject({
      aiAnswerStatus: 'rejected',
      status: 'answered',
    });
    expectProblem(await inject('PATCH', `/api/admin/auto-answer/${e}`, admin, { action: 'approve' }), 422, 'NO_ANSWER_TEXT');
    expectProblem(await inject('PATCH', `/api/admin/auto-answer/${e}`, admin, { action: 'publish' }), 400);
    const plain = await post('No AI state');
    expectProblem(await inject('PATCH', `/api/admin/auto-answer/${plain}`, admin, { action: 'reject' }), 422, 'NO_AI_ANSWER');

    // Escalate an escalated answer (the spec's table: suggested or escalated -> approve, reject or escalate):
    // reviewed, still escalated; the reason stays unless a new one is given.
    const again = await inject('PATCH', `/api/admin/auto-answer/${e}`, admin, { action: 'escalate' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ aiAnswerStatus: 'escalated', previousStatus: 'escalated', aiAnswerReviewedBy: admin.id });
    expect(await reload(e)).toMatchObject({
      aiAnswerStatus: 'escalated',
      aiAnswerEscalatedReason: 'sensitive topic: legal',
      aiAnswerEscalatedAt: NOW,
      aiAnswerReviewedAt: NOW,
      aiAnswerReviewedBy: admin.id,
    });
    const reasoned = await inject('PATCH', `/api/admin/auto-answer/${e}`, admin, { action: 'escalate', reason: 'for the legal team' });
    expect(reasoned.statusCode).toBe(200);
    expect((await reload(e)).aiAnswerEscalatedReason).toBe('for the legal team');
    // The answer says so too: the escalation's reason and time.
    expect(reasoned.json()).toMatchObject({ aiAnswerEscalatedReason: 'for the legal team', aiAnswerEscalatedAt: NOW.toISOString() });
    expect(
      (await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, e))).filter((l) => l.action === 'auto_answer.escalate'),
    ).toHaveLength(2);

    const reject = await inject('PATCH', `/api/admin/auto-answer/${e}`, admin, { action: 'reject', reason: 'not for AI' });
    expect(reject.json()).toMatchObject({ aiAnswerStatus: 'rejected', previousStatus: 'escalated' });
    const log = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, e));
    expect(log.map((l) => l.action)).toContain('auto_answer.reject');
    // Rejected posts stay out of runs until the question changes.
    const dry = await inject('POST', `/api/admin/community/auto-answer?dry_run=true&post_id=${e}`, admin);
    expect(dry.json().items).toEqual([]);
    const edit = await t.app.inject({
      method: 'PUT',
      url: `/api/community/posts/${e}`,
      headers: author.headers,
      payload: { body: 'New details.' },
    });
    expect(edit.statusCode).toBe(200);
    expect((await reload(e)).aiAnswerStatus).toBeNull();
  });
});

describe('who hears of a published AI answer', () => {
  const answeredNotes = async (userId: string, postId: string) =>
    (await t.ctx.db.select().from(notifications).where(eq(notifications.userId, userId))).filter(
      (n) => n.kind === 'post_answered' && (n.data as { postId?: string }).postId === postId,
    ).length;
  const answeredDrops = async (userId: string, postId: string) =>
    (await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.userId, userId))).filter(
      (d) => d.kind === 'post_answered' && d.refId === postId,
    ).length;

  it('the author is told once: approving again after a reject or an escalation is no news', async () => {
    const s = await post('Told once', { aiAnswerStatus: 'suggested', aiAnswer: 'Draft', aiAnswerSuggestedAt: NOW });
    expect(
      (await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'approve', manualAnswer: 'First text' })).statusCode,
    ).toBe(200);
    expect(await answeredNotes(author.id, s)).toBe(1);
    expect(await answeredDrops(author.id, s)).toBe(1);
    expect((await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'reject' })).statusCode).toBe(200);
    expect(
      (await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'approve', manualAnswer: 'Second text' })).statusCode,
    ).toBe(200);
    expect((await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'escalate', reason: 'check' })).statusCode).toBe(200);
    expect((await inject('PATCH', `/api/admin/auto-answer/${s}`, admin, { action: 'approve' })).statusCode).toBe(200);
    expect(await answeredNotes(author.id, s)).toBe(1);
    expect(await answeredDrops(author.id, s)).toBe(1);
  });

  it('an admin approving the answer to their own post, or awarding or revoking their own points and badges, is not told', async () => {
    const [row] = await t.ctx.db
      .insert(communityPosts)
      .values({ batchId: program, authorId: admin.id, title: 'My own question', body: 'Details.', createdAt: hoursAgo(3) })
      .returning({ id: communityPosts.id });
    const own = row?.id as string;
    await t.ctx.db.update(communityPosts).set({ aiAnswerStatus: 'suggested', aiAnswer: 'Draft' }).where(eq(communityPosts.id, own));
    expect((await inject('PATCH', `/api/admin/auto-answer/${own}`, admin, { action: 'approve', manualAnswer: 'Mine' })).statusCode).toBe(
      200,
    );
    expect(await answeredNotes(admin.id, own)).toBe(0);
    expect(await answeredDrops(admin.id, own)).toBe(0);
    expect((await inject('POST', '/api/reputation/points', admin, { userId: admin.id, points: 3, reason: 'me' })).statusCode).toBe(200);
    expect(
      (await inject('POST', '/api/reputation/badge/issue', admin, { userId: admin.id, name: 'selfie', reason: 'me' })).statusCode,
    ).toBe(201);
    expect(
      (await inject('POST', '/api/reputation/badge/revoke', admin, { userId: admin.id, name: 'selfie', reason: 'me' })).statusCode,
    ).toBe(200);
    const mine = await t.ctx.db.select().from(notifications).where(eq(notifications.userId, admin.id));
    expect(mine.filter((n) => ['points_awarded', 'badge_awarded', 'badge_revoked'].includes(n.kind))).toEqual([]);
    // Another user is told of the same acts.
    expect((await inject('POST', '/api/reputation/points', admin, { userId: author.id, points: 3, reason: 'thanks' })).statusCode).toBe(
      200,
    );
    const theirs = await t.ctx.db.select().from(notifications).where(eq(notifications.userId, author.id));
    expect(theirs.filter((n) => n.kind === 'points_awarded')).toHaveLength(1);
  });
});

describe('accountable AI answers and calibration', () => {
  it("the author's 'does not answer' and a net of -2 votes unpublish and re-escalate; calibration counts the demotions", async () => {
    await createKnowledge(t.ctx, { embedding: unitVector(60, 0.99) });
    const a = await post('First accountable [axis60]');
    const b = await post('Second accountable [axis60]');
    for (const id of [a, b])
      expect((await inject('POST', `/api/admin/community/auto-answer?post_id=${id}`, admin)).json().items[0].verdict).toBe('approved');

    expectProblem(
      await inject('POST', `/api/community/posts/${a}/ai-answer/feedback`, voters[0], { helpful: false }),
      403,
      'NOT_POST_OWNER',
    );
    const fb = await inject('POST', `/api/community/posts/${a}/ai-answer/feedback`, author, { helpful: false });
    expect(fb.json()).toMatchObject({ demoted: true, aiAnswerStatus: 'escalated', status: 'open' });
    expect((await reload(a)).aiAnswerEscalatedReason).toMatch(/not answering/);
    expect((await inject('GET', `/api/community/posts/${a}`)).json().aiAnswer).toBeNull();

    const v1 = await inject('POST', `/api/community/posts/${b}/ai-answer/vote`, voters[0], { value: -1 });
    expect(v1.json()).toMatchObject({ aiAnswerScore: -1, demoted: false, myVote: -1 });
    const v2 = await inject('POST', `/api/community/posts/${b}/ai-answer/vote`, voters[1], { value: -1 });
    expect(v2.json()).toMatchObject({ aiAnswerScore: -2, demoted: true, aiAnswerStatus: 'escalated' });
    expectProblem(
      await inject('POST', `/api/community/posts/${b}/ai-answer/vote`, voters[2], { value: -1 }),
      422,
      'NO_PUBLISHED_AI_ANSWER',
    );
    expectProblem(await inject('POST', `/api/community/posts/${b}/ai-answer/vote`, voters[2], { value: 2 }), 400);

    // A demoted answer waits for a human: the run skips it.
    const dry = await inject('POST', `/api/admin/community/auto-answer?dry_run=true&post_id=${a}`, admin);
    expect(dry.json().items).toEqual([]);

    const cal = await inject('GET', '/api/admin/auto-answer/calibration', admin);
    expect(cal.statusCode).toBe(200);
    expect(cal.json().bands).toContainEqual(expect.objectContaining({ band: '0.85-0.90', published: 2, demoted: 2, demotionRate: 1 }));
  });
});

describe('AI configuration', () => {
  it('keys are write-only (last four shown), stored encrypted, revealed only by the audit-logged route', async () => {
    const key = 'sk-anthropic-secret-value-9876';
    const patch = await inject('PATCH', '/api/admin/ai/config', admin, {
      autoAnswerProvider: 'anthropic',
      autoAnswerModel: 'claude-test',
      apiKeys: { anthropic: key },
      baseUrls: { anthropic: 'http://127.0.0.1:9/' },
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.body).not.toContain(key);
    const cfg = patch.json();
    expect(cfg).toMatchObject({ autoAnswerProvider: 'anthropic', autoAnswerModel: 'claude-test' });
    expect(cfg.providers.find((p: { name: string }) => p.name === 'anthropic')).toMatchObject({
      configured: true,
      keySource: 'config',
      keyLast4: '9876',
    });
    expect(cfg.active.auto_answer).toMatchObject({ provider: 'anthropic', model: 'claude-test', source: 'config' });
    const [row] = await t.ctx.db.select().from(aiConfigs);
    expect(JSON.stringify(row?.apiKeys)).not.toContain(key);
    const get = await inject('GET', '/api/admin/ai/config', admin);
    expect(get.body).not.toContain(key);

    const reveal = await inject('GET', '/api/admin/ai/config/api-key/anthropic', admin);
    expect(reveal.json()).toEqual({ provider: 'anthropic', apiKey: key });
    const logs = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.action, 'ai_config.api_key_revealed'));
    expect(logs).toHaveLength(1);
    expect(JSON.stringify(await t.ctx.db.select().from(adminLogs))).not.toContain(key);
    expectProblem(await inject('GET', '/api/admin/ai/config/api-key/gemini', admin), 404, 'API_KEY_NOT_FOUND');
    expectProblem(await inject('GET', '/api/admin/ai/config/api-key/nope', admin), 400);
    expectProblem(await inject('PATCH', '/api/admin/ai/config', admin, { autoAnswerProvider: 'mistral' }), 400);
    expectProblem(await inject('PATCH', '/api/admin/ai/config', admin, { apiKeys: { openai: 'a b' } }), 400);
    // A key no HTTP header can carry is refused here, not stored to fail every call as a "malformed reply".
    const cyrillic = await inject('PATCH', '/api/admin/ai/config', admin, { apiKeys: { ollama: 'ключ-ключ-ключ' } });
    expect(expectProblem(cyrillic, 400).errors?.[0]?.path).toBe('body.apiKeys.ollama');

    const providers = await inject('GET', '/api/admin/ai/providers', admin);
    expect(providers.json()).toMatchObject({ detectionOrder: ['openai', 'anthropic', 'gemini', 'ollama'], detected: 'openai' });

    // The provider test makes a real round trip: openai (the fake) answers, anthropic (nothing listens) fails.
    const test = await inject('GET', '/api/admin/ai/providers/test', admin);
    const results = test.json().results as { provider: string; ok: boolean; error: string | null; latencyMs: number }[];
    expect(results.find((r) => r.provider === 'openai')).toMatchObject({ ok: true, error: null });
    expect(results.find((r) => r.provider === 'anthropic')?.ok).toBe(false);
    expect(test.json().notConfigured).toEqual(['gemini', 'ollama']);
    // A base URL without the version path works for OpenAI too (the client adds /v1).
    await inject('PATCH', '/api/admin/ai/config', admin, { baseUrls: { openai: fake.url } });
    const bare = (await inject('GET', '/api/admin/ai/providers/test', admin)).json().results as { provider: string; ok: boolean }[];
    expect(bare.find((r) => r.provider === 'openai')).toMatchObject({ ok: true, error: null });
    await inject('PATCH', '/api/admin/ai/config', admin, { baseUrls: { openai: null } });

    const cleared = await inject('PATCH', '/api/admin/ai/config', admin, { autoAnswerProvider: null, apiKeys: { anthropic: null } });
    expect(cleared.json().active.auto_answer).toMatchObject({ provider: 'openai', source: 'auto' });
    // A model in the admin config applies to the detected provider too (no provider named anywhere).
    const models = await inject('PATCH', '/api/admin/ai/config', admin, { autoAnswerModel: 'admin-model-x', model: 'general-model-y' });
    expect(models.json().active).toMatchObject({
      auto_answer: { provider: 'openai', model: 'admin-model-x', source: 'auto' },
      faq_audit: { provider: 'openai', model: 'general-model-y', source: 'auto' },
      knowledge_chat: { provider: 'openai', model: 'general-model-y', source: 'auto' },
    });
    // The provider test calls the models the pipelines use, not the provider's default.
    const before = fake.calls.length;
    const tested = (await inject('GET', '/api/admin/ai/providers/test', admin)).json().results as { provider: string; model: string }[];
    expect(
      tested
        .filter((r) => r.provider === 'openai')
        .map((r) => r.model)
        .sort(),
    ).toEqual(['admin-model-x', 'general-model-y']);
    expect(
      fake.calls
        .slice(before)
        .map((c) => c.model)
        .sort(),
    ).toEqual(['admin-model-x', 'general-model-y']);
    await inject('PATCH', '/api/admin/ai/config', admin, { autoAnswerModel: null, model: null });

    const usage = (await inject('GET', '/api/admin/ai/config', admin)).json().usage;
    expect(usage.totals.calls).toBeGreaterThan(0);
    const reset = await inject('POST', '/api/admin/ai/config/reset-usage', admin);
    expect(reset.statusCode).toBe(200);
    expect((await inject('GET', '/api/admin/ai/config', admin)).json().usage.totals.calls).toBe(0);
  });

  it("the environment's key goes only to the environment's host: an admin base URL elsewhere needs a key of its own", async () => {
    // Another host (another port: another origin) that records the credentials it is sent.
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ''));
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`;
    const openai = (cfg: { providers: { name: string }[] }) => cfg.providers.find((p) => p.name === 'openai');
    try {
      const patched = await inject('PATCH', '/api/admin/ai/config', admin, { baseUrls: { openai: elsewhere } });
      expect(openai(patched.json())).toMatchObject({ configured: false, keySource: null });
      // The reason names the cause, whether the provider is named or detected.
      const unconfigured = (Object.values(patched.json().active) as { configured: boolean; reason?: string }[]).filter(
        (c) => !c.configured,
      );
      expect(unconfigured.length).toBeGreaterThan(0);
      for (const choice of unconfigured) expect(choice.reason).toMatch(/sent only to its own host/);
      const test = await inject('GET', '/api/admin/ai/providers/test', admin);
      expect(test.json().notConfigured).toContain('openai');
      expect(seen.join(' ')).not.toContain(fake.apiKey);
      // The admin's own key, stored with that base URL, is the one used there.
      const own = 'sk-admin-own-key-0123456789abcdef';
      expect(openai((await inject('PATCH', '/api/admin/ai/config', admin, { apiKeys: { openai: own } })).json())).toMatchObject({
        configured: true,
        keySource: 'config',
      });
      await inject('GET', '/api/admin/ai/providers/test', admin);
      expect(seen.some((h) => h.includes(own))).toBe(true);
      expect(seen.join(' ')).not.toContain(fake.apiKey);
    } finally {
      await inject('PATCH', '/api/admin/ai/config', admin, { baseUrls: { openai: null }, apiKeys: { openai: null } });
      await new Promise((resolve) => other.close(resolve));
    }
    // Back on the environment's host, the environment's key serves again.
    const back = (await inject('GET', '/api/admin/ai/providers/test', admin)).json().results as { provider: string; ok: boolean }[];
    expect(back.find((r) => r.provider === 'openai')?.ok).toBe(true);
  });
});

describe('a run stopped mid-way', () => {
  it("leaves its claimed posts to its job's retry (same job id), not to another run", async () => {
    const [own] = await t.ctx.db.insert(batches).values({ name: 'Stopped run', slug: 'stopped-run' }).returning({ id: batches.id });
    const batchId = own?.id as string;
    const jobId = '0190f3a2-7c4e-7a10-8000-00000000abcd';
    // What a claim left behind when the worker stopped during the provider call.
    const [row] = await t.ctx.db
      .insert(communityPosts)
      .values({
        batchId,
        authorId: author.id,
        title: 'Claimed, then the worker stopped',
        body: 'Details.',
        createdAt: hoursAgo(30),
        aiAnswerClaim: jobId,
        aiAnswerAttemptedAt: NOW,
        aiAnswerAttempts: 1,
      })
      .returning({ id: communityPosts.id });
    const another = await runAutoAnswer(t.ctx, { trigger: 'schedule', all: true, batchId, runId: '0190f3a2-7c4e-7a10-8000-00000000ffff' });
    expect(another.processed).toBe(0);
    const retry = await runAutoAnswer(t.ctx, { trigger: 'schedule', all: true, batchId, runId: jobId });
    expect(retry.processed).toBe(1);
    expect((await reload(row?.id as string)).aiAnswerClaim).toBeNull();
  });
});

describe('inputs a route would have ignored or stored broken', () => {
  it('approveThreshold and suggestThreshold without dry_run=true are a 400 naming the field: the run never uses them', async () => {
    fake.reply = () => ({ answer: 'Generated answer.', answerable: true, ok: true });
    const id = await post('Threshold question');
    const sentBefore = (t.jobs as MemoryJobQueue).sent.length;
    // 0.6 would have published this 0.62 answer, below the configured approve threshold.
    const one = expectProblem(await inject('POST', `/api/admin/community/auto-answer?post_id=${id}&approveThreshold=0.6`, admin), 400);
    expect(one.errors?.[0]?.path).toBe('query.approveThreshold');
    expect((await reload(id)).aiAnswerStatus).toBeNull();
    const queued = expectProblem(await inject('POST', '/api/admin/community/auto-answer?all=true&suggestThreshold=0.3', admin), 400);
    expect(queued.errors?.[0]?.path).toBe('query.suggestThreshold');
    expect((t.jobs as MemoryJobQueue).sent).toHaveLength(sentBefore);
    // The same post and thresholds in a dry run are what they are for.
    const dry = await inject('POST', `/api/admin/community/auto-answer?dryRun=true&post_id=${id}&approveThreshold=0.6`, admin);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().items).toMatchObject([{ postId: id, verdict: 'approved' }]);
    expect((await reload(id)).aiAnswerStatus).toBeNull();
  });

  it('a base URL that does not parse, or a blank model, is a 400 naming the field; nothing is stored', async () => {
    const before = JSON.stringify(await t.ctx.db.select().from(aiConfigs));
    for (const [body, path] of [
      [{ baseUrls: { openai: 'http://a:99999/' } }, 'body.baseUrls.openai'],
      [{ baseUrls: { ollama: 'http://[::1' } }, 'body.baseUrls.ollama'],
      [{ baseUrls: { gemini: 'https://' } }, 'body.baseUrls.gemini'],
      // Credentials the clients refuse (and that admins and the admin log would see), a query or
      // fragment the clients' paths would land after, port 0.
      [{ baseUrls: { ollama: 'http://user:secretpw@127.0.0.1:11434' } }, 'body.baseUrls.ollama'],
      [{ baseUrls: { openai: 'http://h:11434/v1?x=1' } }, 'body.baseUrls.openai'],
      [{ baseUrls: { openai: 'http://h#frag' } }, 'body.baseUrls.openai'],
      // A bare ? or # (URL parsing drops them; the clients' joining does not).
      [{ baseUrls: { openai: 'https://a.example.com/v1?' } }, 'body.baseUrls.openai'],
      [{ baseUrls: { gemini: 'https://a.example.com/v1#' } }, 'body.baseUrls.gemini'],
      [{ baseUrls: { anthropic: 'http://a:0/' } }, 'body.baseUrls.anthropic'],
      [{ model: '   ' }, 'body.model'],
      [{ autoAnswerModel: '\t' }, 'body.autoAnswerModel'],
    ] as const) {
      // Each case on its own: one passing through does not hide another.
      const res = await inject('PATCH', '/api/admin/ai/config', admin, body);
      expect.soft({ body, status: res.statusCode, path: res.json().errors?.[0]?.path }).toEqual({ body, status: 400, path });
    }
    expect(JSON.stringify(await t.ctx.db.select().from(aiConfigs))).toBe(before);
    const ok = await inject('PATCH', '/api/admin/ai/config', admin, { baseUrls: { ollama: 'http://[::1]:11434/' } });
    expect(ok.statusCode, ok.body).toBe(200);
    // A scheme in capitals is the same scheme.
    expect(
      (await inject('PATCH', '/api/admin/ai/config', admin, { baseUrls: { ollama: 'HTTPS://ollama.example.test/' } })).statusCode,
    ).toBe(200);
    await inject('PATCH', '/api/admin/ai/config', admin, { baseUrls: { ollama: null } });
  });

  it('a patch that changes nothing writes nothing and logs nothing; a real change logs what changed', async () => {
    const updates = async () => (await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.action, 'ai_config.updated'))).length;
    await inject('PATCH', '/api/admin/ai/config', admin, { model: 'gpt-4o-mini', baseUrls: { ollama: null } });
    const before = await updates();
    for (const body of [
      { baseUrls: {} },
      { apiKeys: {} },
      { baseUrls: { ollama: null } },
      { apiKeys: { gemini: null } },
      { model: 'gpt-4o-mini' },
    ]) {
      const res = await inject('PATCH', '/api/admin/ai/config', admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(200);
    }
    expect(await updates()).toBe(before);
    // A key set to the value it has is no change either.
    await inject('PATCH', '/api/admin/ai/config', admin, { apiKeys: { gemini: 'gm-key-aaaaaaaaaaaa' } });
    const withKey = await updates();
    await inject('PATCH', '/api/admin/ai/config', admin, { apiKeys: { gemini: 'gm-key-aaaaaaaaaaaa' } });
    expect(await updates()).toBe(withKey);
    await inject('PATCH', '/api/admin/ai/config', admin, { model: 'gpt-4o', baseUrls: { ollama: null } });
    const [last] = (await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.action, 'ai_config.updated'))).sort(
      (a, b) => b.createdAt.getTime() - a.createdAt.getTime(),
    );
    // Only what changed: not the unchanged ollama URL the patch repeated.
    expect(last?.details).toEqual({ changed: ['model'], model: 'gpt-4o' });
    await inject('PATCH', '/api/admin/ai/config', admin, { apiKeys: { gemini: null } });
  });

  it('manualAnswer with reject or escalate, or blank with approve, is a 400 naming it; nothing changes', async () => {
    const id = await post('Reviewed with a manual answer', {
      aiAnswerStatus: 'suggested',
      aiAnswer: 'AI draft text',
      aiAnswerConfidence: 0.7,
      aiAnswerSource: 'ai_generated',
      aiAnswerSuggestedAt: NOW,
    });
    const before = await reload(id);
    for (const body of [
      { action: 'reject', manualAnswer: 'x' },
      { action: 'escalate', manualAnswer: 'Staff text', reason: 'check' },
      { action: 'approve', manualAnswer: '   ' },
    ]) {
      const res = await inject('PATCH', `/api/admin/auto-answer/${id}`, admin, body);
      expect
        .soft({ body, status: res.statusCode, path: res.json().errors?.[0]?.path })
        .toEqual({ body, status: 400, path: 'body.manualAnswer' });
    }
    expect(await reload(id)).toEqual(before);
    const approved = await inject('PATCH', `/api/admin/auto-answer/${id}`, admin, { action: 'approve', manualAnswer: 'Staff text' });
    expect(approved.json()).toMatchObject({ aiAnswerStatus: 'approved', aiAnswer: 'Staff text', aiAnswerSource: 'manual' });
  });
});
