import { type MemoryJobQueue, promoteDue, runEscalationCheck } from '@cfaq/core';
import {
  adminLogs,
  comments,
  communityPosts,
  confInsights,
  confMeetings,
  faqReports,
  faqs,
  pipelineResults,
  postEscalationLogs,
  teaNotifications,
  transcriptKnowledge,
  unresolvedSearches,
} from '@cfaq/db/schema/index';
import { and, eq, inArray, or } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

// A deleted program's rows stay (soft delete), but no job, admin action, list or count reaches them.
type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let admin: Who;
let author: Who;
let others: Who[];
let gone: string;
const ids = {
  knowledge: '',
  post: '',
  upvoted: '',
  report: '',
  unresolved: '',
  suggested: '',
  escalated: '',
  pending: '',
  faq: '',
  escalatedFaq: '',
  meeting: '',
  insight: '',
  approvedInsight: '',
  transcriptKnowledge: '',
};

beforeAll(async () => {
  t = await createTestApp();
  [admin, author] = await Promise.all([t.signIn('admin'), t.signIn('user')]);
  others = await Promise.all([t.signIn('user'), t.signIn('user'), t.signIn('user')]);
  const program = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Going away' } });
  gone = (program.json() as { id: string }).id;
  const ingested = await t.app.inject({
    method: 'POST',
    url: '/api/knowledge/ingest',
    headers: admin.headers,
    payload: { title: 'Wombat care guide', content: 'Feed wombats grass and roots in the evening.', batchId: gone },
  });
  expect(ingested.statusCode).toBe(201);
  ids.knowledge = (ingested.json() as { items: { id: string }[] }).items[0]?.id as string;
  const [faq, escalatedFaq] = await t.ctx.db
    .insert(faqs)
    .values([
      { batchId: gone, question: 'How do I feed a wombat?', answer: 'Grass.', reviewStatus: 'approved' },
      { batchId: gone, question: 'Do wombats swim?', answer: 'Rarely.', reviewStatus: 'update_requested', escalatedAt: new Date() },
    ])
    .returning({ id: faqs.id });
  ids.faq = faq?.id as string;
  ids.escalatedFaq = escalatedFaq?.id as string;
  const [report] = await t.ctx.db
    .insert(faqReports)
    .values({ faqId: faq?.id as string, reporterId: author.id, reason: 'Outdated' })
    .returning({ id: faqReports.id });
  ids.report = report?.id as string;
  const [post, upvoted] = await t.ctx.db
    .insert(communityPosts)
    .values([
      { batchId: gone, authorId: author.id, title: 'Unanswered wombat question', body: 'Help' },
      { batchId: gone, authorId: author.id, title: 'Answered wombat question', body: 'Help' },
    ])
    .returning({ id: communityPosts.id });
  ids.post = post?.id as string;
  ids.upvoted = upvoted?.id as string;
  await t.ctx.db
    .insert(comments)
    .values([
      ...others.map((o, i) => ({ postId: ids.post, authorId: o.id, body: `not it ${i}`, dna: true })),
      { postId: ids.upvoted, authorId: (others[0] as Who).id, body: 'Roots, in the evening.', isAccepted: true, upvotes: 3 },
    ]);
  const [unresolved] = await t.ctx.db
    .insert(unresolvedSearches)
    .values({ batchId: gone, query: 'wombat diet', normalizedQuery: 'wombat diet', count: 3, clientKeys: ['a', 'b', 'c'] })
    .returning({ id: unresolvedSearches.id });
  ids.unresolved = unresolved?.id as string;
  const [suggested, escalated, source] = await t.ctx.db
    .insert(communityPosts)
    .values([
      { batchId: gone, authorId: author.id, title: 'AI answered', body: 'Help', aiAnswer: 'An answer.', aiAnswerStatus: 'suggested' },
      { batchId: gone, authorId: author.id, title: 'Escalated', body: 'Help', escalationStatus: 'escalated', escalatedAt: new Date() },
      { batchId: gone, authorId: author.id, title: 'Popular', body: 'Help', upvotes: 10 },
    ])
    .returning({ id: communityPosts.id });
  ids.suggested = suggested?.id as string;
  ids.escalated = escalated?.id as string;
  const [pending] = await t.ctx.db
    .insert(faqs)
    .values({
      batchId: gone,
      question: 'Popular',
      answer: 'Yes.',
      reviewStatus: 'draft',
      source: 'community_post',
      sourceId: source?.id as string,
      promotionStatus: 'community_pending',
      promotionEligibleAt: new Date(Date.now() - 60_000),
    })
    .returning({ id: faqs.id });
  ids.pending = pending?.id as string;
  const [meeting] = await t.ctx.db
    .insert(confMeetings)
    .values({ confMeetingId: 'gone-meeting', batchId: gone, topic: 'Wombat session', status: 'completed', sourcing: 'manual_raw' })
    .returning({ id: confMeetings.id });
  ids.meeting = meeting?.id as string;
  const [insight, approvedInsight] = await t.ctx.db
    .insert(confInsights)
    .values([
      { meetingId: ids.meeting, batchId: gone, question: 'When do wombats eat?', answer: 'In the evening.' },
      { meetingId: ids.meeting, batchId: gone, question: 'What do wombats eat?', answer: 'Grass.', status: 'approved' },
    ])
    .returning({ id: confInsights.id });
  ids.insight = insight?.id as string;
  ids.approvedInsight = approvedInsight?.id as string;
  const [tk] = await t.ctx.db
    .insert(transcriptKnowledge)
    .values({ meetingId: ids.meeting, batchId: gone, title: 'Wombat hours', content: 'Wombats eat at dusk.', status: 'pending_review' })
    .returning({ id: transcriptKnowledge.id });
  ids.transcriptKnowledge = tk?.id as string;
  expect((await t.app.inject({ method: 'DELETE', url: `/api/batches/${gone}`, headers: admin.headers })).statusCode).toBe(204);
});
afterAll(async () => {
  await t.close();
});

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: admin.headers });

describe('a deleted program', () => {
  it('takes no FAQ from a knowledge promote (404, the item stays approved)', async () => {
    const res = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${ids.knowledge}/promote`, headers: admin.headers, payload: {} });
    expectProblem(res, 404, 'PROGRAM_NOT_FOUND');
    const [row] = await t.ctx.db.select({ n: faqs.id }).from(faqs).where(eq(faqs.question, 'Wombat care guide'));
    expect(row).toBeUndefined();
  });

  it('gives process-upvotes nothing to turn into knowledge', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/knowledge/process-upvotes', headers: admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ created: 0 });
  });

  it('has no post escalated by the escalation check, and 404 as an escalation filter', async () => {
    await runEscalationCheck(t.ctx);
    const [row] = await t.ctx.db.select().from(communityPosts).where(eq(communityPosts.id, ids.post));
    expect(row?.escalationStatus).toBe('none');
    expectProblem(await get(`/api/admin/community/escalated-posts?batchId=${gone}`), 404, 'PROGRAM_NOT_FOUND');
  });

  it('leaves the escalation history (its rows and its total), as it leaves the escalated posts', async () => {
    await t.ctx.db
      .insert(postEscalationLogs)
      .values({ postId: ids.escalated, batchId: gone, action: 'escalated', fromStatus: 'none', toStatus: 'escalated' });
    for (const url of ['/api/admin/community/escalation-history', '/api/admin/escalation-history']) {
      const all = (await get(`${url}?limit=100`)).json() as { items: { postId: string }[]; total: number };
      expect(all.items.map((i) => i.postId)).not.toContain(ids.escalated);
      expect(all.total).toBe(all.items.length);
      expect((await get(`${url}?postId=${ids.escalated}`)).json()).toMatchObject({ total: 0, items: [] });
    }
  });

  it('leaves the report list, and its reports can no longer be closed', async () => {
    const list = (await get('/api/admin/faqs/reports')).json() as { items: { id: string }[] };
    expect(list.items.map((i) => i.id)).not.toContain(ids.report);
    expectProblem(await get(`/api/admin/faqs/reports?batchId=${gone}`), 404, 'PROGRAM_NOT_FOUND');
    const close = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/faqs/reports/${ids.report}`,
      headers: admin.headers,
      payload: { status: 'resolved' },
    });
    expectProblem(close, 404, 'REPORT_NOT_FOUND');
  });

  it('leaves the knowledge list (404 as its filter)', async () => {
    const list = (await get('/api/knowledge')).json() as { items: { id: string }[] };
    expect(list.items.map((i) => i.id)).not.toContain(ids.knowledge);
    expectProblem(await get(`/api/knowledge?batchId=${gone}`), 404, 'PROGRAM_NOT_FOUND');
  });

  it('leaves the unresolved-search figures and list, which then agree with the dashboard', async () => {
    const stats = (await get('/api/search/unresolved-stats')).json() as { open: number };
    expect(stats.open).toBe(0);
    const list = (await get('/api/search/unresolved-list')).json() as { items: { id: string }[] };
    expect(list.items.map((i) => i.id)).not.toContain(ids.unresolved);
    const dashboard = (await get('/api/admin/stats')).json() as { unresolvedOpen: number };
    expect(dashboard.unresolvedOpen).toBe(stats.open);
  });

  it('is 404 as a batchId on every route that takes one', async () => {
    for (const url of [
      '/api/admin/auto-answer/queue',
      '/api/conf/insights',
      '/api/conf/meetings',
      '/api/admin/escalated',
      '/api/admin/audit/results',
      '/api/faq',
    ]) {
      expectProblem(await get(`${url}?batchId=${gone}`), 404, 'PROGRAM_NOT_FOUND');
    }
  });

  it('has no AI answer in the review queue, and none published from it', async () => {
    const queue = (await get('/api/admin/auto-answer/queue')).json() as { items: { postId: string }[] };
    expect(queue.items.map((i) => i.postId)).not.toContain(ids.suggested);
    const approve = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/auto-answer/${ids.suggested}`,
      headers: admin.headers,
      payload: { action: 'approve' },
    });
    expectProblem(approve, 404, 'POST_NOT_FOUND');
  });

  it('has no escalated post resolved, and no community-pending FAQ promoted by the cycle', async () => {
    const resolve = await t.app.inject({
      method: 'POST',
      url: `/api/admin/community/escalated-posts/${ids.escalated}/resolve`,
      headers: admin.headers,
      payload: {},
    });
    expectProblem(resolve, 404, 'POST_NOT_FOUND');
    expect(await promoteDue(t.ctx)).not.toContain(ids.pending);
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, ids.pending));
    expect(row?.reviewStatus).toBe('draft');
  });

  it('takes no staff action on its FAQs: escalations, promotion and objection are 404, nothing logged or dropped', async () => {
    const staff = [
      ['/api/admin/escalated/:id/verify', ids.escalatedFaq, undefined],
      ['/api/admin/escalated/:id/dismiss', ids.escalatedFaq, { reason: 'fine as is' }],
      ['/api/faq/:id/escalation/verify', ids.escalatedFaq, undefined],
      ['/api/faq/:id/escalation/dismiss', ids.escalatedFaq, { reason: 'fine as is' }],
      ['/api/admin/faqs/:id/promote', ids.pending, undefined],
      ['/api/admin/faqs/:id/object', ids.pending, { reason: 'not yet' }],
    ] as const;
    for (const [url, id, payload] of staff) {
      const res = await t.app.inject({
        method: 'POST',
        url: url.replace(':id', id),
        headers: admin.headers,
        ...(payload ? { payload } : {}),
      });
      expectProblem(res, 404, 'FAQ_NOT_FOUND');
    }
    const [escalatedRow] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, ids.escalatedFaq));
    expect(escalatedRow?.reviewStatus).toBe('update_requested');
    const [pendingRow] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, ids.pending));
    expect(pendingRow).toMatchObject({ reviewStatus: 'draft', promotionStatus: 'community_pending', objectionCount: 0 });
    const logs = await t.ctx.db
      .select()
      .from(adminLogs)
      .where(or(eq(adminLogs.targetId, ids.escalatedFaq), eq(adminLogs.targetId, ids.pending)));
    expect(logs).toEqual([]);
    const drops = await t.ctx.db.select().from(teaNotifications).where(eq(teaNotifications.refId, ids.pending));
    expect(drops).toEqual([]);
  });

  it('takes no flag, vote, feedback or report on its FAQs (404)', async () => {
    const user = (others[1] as Who).headers;
    for (const [url, payload] of [
      [`/api/faq/${ids.faq}/flag`, { reason: 'stale' }],
      [`/api/faq/${ids.escalatedFaq}/flag`, { reason: 'stale' }],
      [`/api/faq/${ids.faq}/vote-review`, { verdict: 'needs_update' }],
      [`/api/faq/${ids.faq}/feedback`, { helpful: true }],
      [`/api/faq/${ids.faq}/report`, { reason: 'wrong' }],
    ] as const) {
      expectProblem(await t.app.inject({ method: 'POST', url, headers: user, payload }), 404, 'FAQ_NOT_FOUND');
    }
    const patchFlag = await t.app.inject({ method: 'PATCH', url: `/api/faq/${ids.faq}/flag`, headers: user, payload: { reason: 'stale' } });
    expectProblem(patchFlag, 404, 'FAQ_NOT_FOUND');
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, ids.faq));
    expect(row).toMatchObject({ reviewStatus: 'approved', helpfulCount: 0 });
  });

  it('has no FAQ to audit by id: 404 FAQ_NOT_FOUND, no result written, nothing logged', async () => {
    for (const id of [ids.faq, ids.escalatedFaq]) {
      const res = await t.app.inject({ method: 'POST', url: `/api/admin/audit/faqs?faq_id=${id}`, headers: admin.headers });
      expectProblem(res, 404, 'FAQ_NOT_FOUND');
      expect(await t.ctx.db.select().from(pipelineResults).where(eq(pipelineResults.targetId, id))).toEqual([]);
      expect(await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.targetId, id))).toEqual([]);
    }
    const [row] = await t.ctx.db.select().from(faqs).where(eq(faqs.id, ids.faq));
    expect(row).toMatchObject({ reviewStatus: 'approved', lastCheckedAt: null });
  });

  it('has no meeting to re-process: both routes are 404 MEETING_NOT_FOUND, the meeting unchanged, no job queued', async () => {
    const before = (t.jobs as MemoryJobQueue).sent.length;
    for (const url of [`/api/conf/meetings/${ids.meeting}/transcript`, `/api/knowledge/process-meeting/${ids.meeting}`]) {
      expectProblem(await t.app.inject({ method: 'POST', url, headers: admin.headers }), 404, 'MEETING_NOT_FOUND');
    }
    expect((t.jobs as MemoryJobQueue).sent.slice(before)).toEqual([]);
    const [row] = await t.ctx.db.select().from(confMeetings).where(eq(confMeetings.id, ids.meeting));
    expect(row?.status).toBe('completed');
  });

  it('takes no approve or reject of its knowledge: 404 KNOWLEDGE_NOT_FOUND, status unchanged, nothing logged', async () => {
    for (const [id, action] of [
      [ids.knowledge, 'reject'],
      [ids.transcriptKnowledge, 'approve'],
      [ids.transcriptKnowledge, 'reject'],
    ] as const) {
      const res = await t.app.inject({ method: 'PUT', url: `/api/knowledge/${id}/${action}`, headers: admin.headers, payload: {} });
      expectProblem(res, 404, 'KNOWLEDGE_NOT_FOUND');
    }
    const [tk] = await t.ctx.db.select().from(transcriptKnowledge).where(eq(transcriptKnowledge.id, ids.transcriptKnowledge));
    expect(tk?.status).toBe('pending_review');
    const logs = await t.ctx.db
      .select()
      .from(adminLogs)
      .where(
        and(
          or(eq(adminLogs.targetId, ids.knowledge), eq(adminLogs.targetId, ids.transcriptKnowledge)),
          inArray(adminLogs.action, ['knowledge.approved', 'knowledge.rejected']),
        ),
      );
    expect(logs).toEqual([]);
  });

  it('takes no edit of its meeting insights (404 INSIGHT_NOT_FOUND) and no conversion (404 PROGRAM_NOT_FOUND)', async () => {
    for (const payload of [{ status: 'approved' }, { question: 'When do wombats sleep?' }]) {
      const res = await t.app.inject({ method: 'PUT', url: `/api/conf/insights/${ids.insight}`, headers: admin.headers, payload });
      expectProblem(res, 404, 'INSIGHT_NOT_FOUND');
    }
    const [row] = await t.ctx.db.select().from(confInsights).where(eq(confInsights.id, ids.insight));
    expect(row).toMatchObject({ status: 'pending_review', question: 'When do wombats eat?', reviewedBy: null });
    const convert = await t.app.inject({
      method: 'POST',
      url: `/api/conf/insights/${ids.approvedInsight}/convert-to-faq`,
      headers: admin.headers,
      payload: {},
    });
    expectProblem(convert, 404, 'PROGRAM_NOT_FOUND');
    const [approved] = await t.ctx.db.select().from(confInsights).where(eq(confInsights.id, ids.approvedInsight));
    expect(approved?.convertedFaqId).toBeNull();
  });
});
