import { runFaqAudit } from '@cfaq/core';
import { adminLogs, comments, communityPosts, faqs } from '@cfaq/db/schema/index';
import { defaultProgramId, type FakeAiServer, startFakeOpenAI } from '@cfaq/testkit';
import { asc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, GENEROUS_LIMITS, type TestApp } from './helpers.js';

// The spec: "Moderation and admin actions are written to audit logs". These admin writes wrote none.
let t: TestApp;
let ai: FakeAiServer;
let admin: Awaited<ReturnType<TestApp['signIn']>>;
let program: string;

beforeAll(async () => {
  ai = await startFakeOpenAI();
  ai.reply = () => ({ score: 0.9, confidence: 0.9, reason: 'Matches the sources.', citedSourceIds: [], evidence: [] });
  t = await createTestApp({
    env: { ...GENEROUS_LIMITS, OPENAI_API_KEY: ai.apiKey, OPENAI_BASE_URL: ai.baseUrl, AI_RETRY_BASE_MS: '1', AI_MAX_RETRIES: '0' },
  });
  admin = await t.signIn('admin');
  program = await defaultProgramId(t.ctx);
});
afterAll(async () => {
  await t?.close();
  await ai?.close();
});

const logs = (prefix: string) =>
  t.ctx.db
    .select()
    .from(adminLogs)
    .where(like(adminLogs.action, `${prefix}%`))
    .orderBy(asc(adminLogs.createdAt), asc(adminLogs.id));
const inject = (method: 'POST' | 'PUT', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });

describe('knowledge writes are audit-logged', () => {
  it('ingest, reject, approve and promote each write one admin-log row naming the admin, item and program', async () => {
    const ing = await inject('POST', '/api/knowledge/ingest', { title: 'Library hours', content: 'The library opens at 9am on weekdays.' });
    expect(ing.statusCode, ing.body).toBe(201);
    const id = (ing.json() as { items: { id: string }[] }).items[0]?.id as string;
    expect((await inject('PUT', `/api/knowledge/${id}/reject`)).statusCode).toBe(200);
    expect((await inject('PUT', `/api/knowledge/${id}/approve`)).statusCode).toBe(200);
    const pro = await inject('PUT', `/api/knowledge/${id}/promote`, { question: 'When does the library open?', faqId: null });
    expect(pro.statusCode, pro.body).toBe(200);
    const faqId = (pro.json() as { faq: { id: string } }).faq.id;

    const rows = await logs('knowledge.');
    const who = { actorId: admin.id, targetType: 'DocumentInsight', targetId: id, batchId: program };
    expect(rows.map((r) => r.action)).toEqual(['knowledge.ingested', 'knowledge.rejected', 'knowledge.approved', 'knowledge.promoted']);
    expect(rows[0]).toMatchObject({ ...who, details: { title: 'Library hours', parts: 1, itemIds: [id] } });
    expect(rows[1]).toMatchObject({ ...who, details: { from: 'approved', to: 'rejected' } });
    expect(rows[2]).toMatchObject({ ...who, details: { from: 'rejected', to: 'approved' } });
    expect(rows[3]).toMatchObject({ ...who, details: { faqId, faqAction: 'created', question: 'When does the library open?' } });
    expect(rows.every((r) => r.ip)).toBe(true);

    // A refused write logs nothing (the row is written in the write's transaction).
    expect((await inject('PUT', `/api/knowledge/${id}/reject`)).statusCode).toBe(422);
    expect(await logs('knowledge.')).toHaveLength(4);
    // Nor does a repeat that changes nothing: approving an approved item answers it as it is.
    const ing2 = await inject('POST', '/api/knowledge/ingest', { title: 'Gym hours', content: 'The gym opens at 7am on weekdays.' });
    const id2 = (ing2.json() as { items: { id: string }[] }).items[0]?.id as string;
    const first = await inject('PUT', `/api/knowledge/${id2}/approve`);
    expect(first.json()).toMatchObject({ status: 'approved' });
    await inject('PUT', `/api/knowledge/${id2}/reject`);
    const again = await inject('PUT', `/api/knowledge/${id2}/reject`);
    expect(again.json()).toMatchObject({ status: 'rejected' });
    expect((await logs('knowledge.')).filter((r) => r.targetId === id2).map((r) => r.action)).toEqual([
      'knowledge.ingested',
      'knowledge.rejected',
    ]);
  });

  it('process-upvotes writes one row per run that made knowledge, with its counts; a run that made none writes none', async () => {
    const author = await t.signIn('user');
    const [post] = await t.ctx.db
      .insert(communityPosts)
      .values({ batchId: program, authorId: author.id, title: 'Where do I print?', body: 'Is there a printer on campus?' })
      .returning({ id: communityPosts.id });
    const [comment] = await t.ctx.db
      .insert(comments)
      .values({ postId: post?.id as string, authorId: author.id, body: 'The library has two printers.', upvotes: 3, isAccepted: true })
      .returning({ id: comments.id });
    const before = (await logs('knowledge.upvotes_processed')).length;
    const run = await inject('POST', '/api/knowledge/process-upvotes');
    expect(run.statusCode, run.body).toBe(200);
    const made = run.json() as { created: number; items: { id: string; sourceRef: string }[] };
    expect(made.items.map((i) => i.sourceRef)).toContain(comment?.id);
    const rows = await logs('knowledge.upvotes_processed');
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({
      actorId: admin.id,
      targetType: 'DocumentInsight',
      details: { created: made.created, minUpvotes: 3, itemIds: made.items.map((i) => i.id) },
    });
    expect((await inject('POST', '/api/knowledge/process-upvotes')).json()).toMatchObject({ created: 0 });
    expect(await logs('knowledge.upvotes_processed')).toHaveLength(before + 1);
  });
});

describe('the FAQ audit run by an admin is audit-logged', () => {
  it('one row per run that writes, with its counts; a dry run and the scheduled run write none', async () => {
    const [faq] = await t.ctx.db
      .insert(faqs)
      .values({ batchId: program, question: 'When does the gym open?', answer: 'At 7am.' })
      .returning({ id: faqs.id });
    const faqId = faq?.id as string;
    const actor = { id: admin.id, role: 'admin' as const, ip: '203.0.113.9' };
    await runFaqAudit(t.ctx, { faqId, dryRun: true, actor });
    await runFaqAudit(t.ctx, { faqId });
    expect(await logs('faq_audit.')).toEqual([]);
    const run = await runFaqAudit(t.ctx, { faqId, actor });
    const rows = await logs('faq_audit.');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actorId: admin.id,
      action: 'faq_audit.run',
      targetType: 'FAQ',
      targetId: faqId,
      ip: '203.0.113.9',
      details: { runId: run.runId, faqId, audited: 1, checked: run.checked, flagged: run.flagged },
    });
    expect((await t.ctx.db.select().from(faqs).where(eq(faqs.id, faqId)))[0]?.lastCheckedAt).not.toBeNull();
    // Through the route: the admin who ran it is named; a dry run logs nothing.
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/admin/audit/faqs?dry_run=true&faq_id=${faqId}`, headers: admin.headers }))
        .statusCode,
    ).toBe(200);
    expect(await logs('faq_audit.')).toHaveLength(1);
    const viaRoute = await t.app.inject({ method: 'POST', url: `/api/admin/audit/faqs?faq_id=${faqId}`, headers: admin.headers });
    expect(viaRoute.statusCode, viaRoute.body).toBe(200);
    const after = await logs('faq_audit.');
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ actorId: admin.id, action: 'faq_audit.run', details: { runId: viaRoute.json().runId, faqId } });
  });
});
