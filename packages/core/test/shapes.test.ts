import * as dbSchema from '@cfaq/db/schema/index';
import {
  aiAnswerSource,
  aiAnswerStatus,
  confInsights,
  escalationStatus,
  faqReportStatus,
  faqSource,
  postStatus,
} from '@cfaq/db/schema/index';
import { createTestContext, createUser, type TestContext } from '@cfaq/testkit';
import { Type as T, type TSchema } from '@sinclair/typebox';
import { getTableColumns, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAiConfig, listAiProviders, resetAiUsage, testAiProviders } from '../src/ai/admin-config.js';
import { AiConfigShape, ProvidersReportShape, ProviderTestShape, ResetUsageShape } from '../src/ai/shape.js';
import { listAuditLogs } from '../src/audit/index.js';
import { AuditLogItemShape } from '../src/audit/shape.js';
import { aiAnswerFeedback, voteAiAnswer } from '../src/auto-answer/accountability.js';
import { calibration, listReviewQueue, reviewAiAnswer } from '../src/auto-answer/review.js';
import { runAutoAnswer } from '../src/auto-answer/run.js';
import {
  AiAnswerStateShape,
  AiReviewResultShape,
  CalibrationShape,
  ReviewQueueEntryShape,
  RunReportShape,
  WhatIfShape,
} from '../src/auto-answer/shape.js';
import { thresholdWhatIf } from '../src/auto-answer/what-if.js';
import { acceptComment, addComment, listComments, setCommentDna, voteComment } from '../src/community/comments.js';
import { convertPostToFaq } from '../src/community/convert.js';
import { escalateUnansweredPosts, escalationHistory, listEscalatedPosts, resolveEscalatedPost } from '../src/community/escalation.js';
import { createPost, getPost, listPosts, votePost } from '../src/community/posts.js';
import {
  AcceptResultShape,
  CommentShape,
  ConvertResultShape,
  EscalatedPostShape,
  EscalationHistoryItemShape,
  PostShape,
  VoteOutcomeShape,
} from '../src/community/shape.js';
import { convertInsightToFaq, listInsights, updateInsight } from '../src/conf/insights.js';
import { confHealth, confPublicStats, getMeeting, listMeetings, reprocessMeeting } from '../src/conf/meetings.js';
import { confConnection } from '../src/conf/oauth.js';
import {
  ConfConnectionShape,
  ConfHealthShape,
  ConfPublicStatsShape,
  ConvertInsightResultShape,
  InsightShape,
  MeetingDetailShape,
  MeetingShape,
  UploadResultShape,
} from '../src/conf/shape.js';
import { uploadTranscript } from '../src/conf/upload.js';
import { auditStats, listAuditResults } from '../src/faq-audit/results.js';
import { runFaqAudit } from '../src/faq-audit/run.js';
import { AuditResultShape, AuditRunResultShape, AuditStatsShape } from '../src/faq-audit/shape.js';
import { listCategories } from '../src/faqs/categories.js';
import { staffReviewQueue } from '../src/faqs/escalated.js';
import { giveFeedback } from '../src/faqs/feedback.js';
import { listCommunityPending } from '../src/faqs/promotion.js';
import { closeFaqReport, listFaqReports, reportFaq } from '../src/faqs/reports.js';
import { flagFaq, reviewQueue, voteReview } from '../src/faqs/review.js';
import { createFaq, faqHistory, getFaq, listFaqs, suggestFaq, updateFaq } from '../src/faqs/service.js';
import {
  CategoryShape,
  CommunityPendingItemShape,
  FaqReportItemShape,
  FaqShape,
  FeedbackResultShape,
  ReportShape,
  ReviewQueueItemShape,
  RevisionShape,
  StaffReviewItemShape,
  VoteResultShape,
} from '../src/faqs/shape.js';
import { exportUserData } from '../src/identity/export.js';
import { suspendUser } from '../src/identity/moderation.js';
import { UserDetailShape, UserExportShape, UserShape } from '../src/identity/shape.js';
import { getUser, getUserDetail, listUsers } from '../src/identity/users.js';
import {
  answerPostFromKnowledge,
  ingestDocument,
  knowledgeChat,
  listKnowledge,
  processUpvotes,
  promoteKnowledge,
  searchKnowledgeItems,
  setKnowledgeStatus,
} from '../src/knowledge/items.js';
import {
  ChatAnswerShape,
  KnowledgeHitsShape,
  KnowledgeItemShape,
  KnowledgeItemsShape,
  PostChatAnswerShape,
  PromoteKnowledgeShape,
  UpvoteKnowledgeShape,
} from '../src/knowledge/shape.js';
import { listNotifications, markNotificationRead } from '../src/notifications/reads.js';
import { NotificationListShape, NotificationShape, TeaDropShape, TeaListShape } from '../src/notifications/shape.js';
import { streamAfter } from '../src/notifications/stream.js';
import { listTeaDrops } from '../src/notifications/tea.js';
import { notify, teaDrop } from '../src/notifications/write.js';
import { createProgram, listPrograms, setProgramArchived, updateProgram } from '../src/programs/batches.js';
import { defaultProgramSettings, getProgramSettings, putProgramSettings } from '../src/programs/settings.js';
import { ProgramSettingsShape, ProgramShape } from '../src/programs/shape.js';
import { adminAwardPoints, adminIssueBadge, leaderboard, reputationHistory } from '../src/reputation/service.js';
import { LeaderboardShape, ReputationLogShape, ReputationSummaryShape } from '../src/reputation/shape.js';
import {
  adminListUnresolved,
  listOpenUnresolved,
  logUnresolvedSearch,
  resolveUnresolvedSearch,
  suggestSearches,
  trendingSearches,
  unresolvedStats,
} from '../src/search/queries.js';
import { createSearchService } from '../src/search/service.js';
import {
  LoggedUnresolvedSearchShape,
  PublicUnresolvedItemShape,
  SearchResponseShape,
  SuggestResponseShape,
  TrendingResponseShape,
  UnresolvedSearchItemShape,
  UnresolvedStatsShape,
} from '../src/search/shape.js';
import type { Actor } from '../src/shared/db.js';
import { DateTime, pageOf } from '../src/shared/shape.js';
import { expectShape, shapeDrift } from './shape-check.js';

/**
 * Each response shape is declared once, in core, and is both the route's schema and the type its
 * core function returns. These checks hold real results of the services against their shapes, so
 * the single definition cannot drift from what the service returns (a renamed column, a new key the
 * serializer would drop, a date turned into a string by hand).
 */
let t: TestContext;
let admin: Actor;
let user: Actor;
beforeAll(async () => {
  t = await createTestContext();
  admin = { id: (await createUser(t.ctx, { role: 'admin' })).id, role: 'admin' };
  user = { id: (await createUser(t.ctx, { role: 'user' })).id, role: 'user' };
});
afterAll(async () => {
  await t.close();
});

describe('the shape check itself', () => {
  const Shape = T.Object({ at: DateTime, n: T.Integer() });
  it('refuses a date given as an ISO string, and a key the shape does not declare', () => {
    expect(shapeDrift(Shape, { at: new Date(), n: 1 })).toEqual([]);
    expect(shapeDrift(Shape, { at: new Date().toISOString(), n: 1 })).not.toEqual([]);
    expect(shapeDrift(Shape, { at: new Date(Number.NaN), n: 1 })).not.toEqual([]);
    expect(shapeDrift(Shape, { at: new Date(), n: 1, extra: true })).toEqual(['$.extra: not in the shape (the serializer would drop it)']);
    expect(shapeDrift(T.Array(Shape), [{ at: new Date(), n: 1, x: 1 }])).toEqual([
      '$[0].x: not in the shape (the serializer would drop it)',
    ]);
  });
  it('declares a date as an ISO 8601 string in the document', () => {
    expect(JSON.parse(JSON.stringify(DateTime))).toEqual({ type: 'string', format: 'date-time' });
  });
});

describe('FAQ shapes hold real results', () => {
  it('FAQ, list, revision, report, feedback, vote, review queues, categories', async () => {
    const faq = await createFaq(t.ctx, admin, { question: 'How do shapes stay single?', answer: 'Declared once in core.' });
    expectShape(FaqShape, faq);
    expectShape(FaqShape, await getFaq(t.ctx, user, faq.id));
    expectShape(pageOf(FaqShape), await listFaqs(t.ctx, null, { page: 1, limit: 20 }));
    await updateFaq(t.ctx, admin, faq.id, { answer: 'Declared once in core, used by the route.' });
    const history = await faqHistory(t.ctx, user, faq.id, { page: 1, limit: 20 });
    expect(history.items.length).toBe(1);
    expectShape(pageOf(RevisionShape), history);
    expectShape(ReportShape, await reportFaq(t.ctx, user, faq.id, 'the answer is outdated'));
    expectShape(FeedbackResultShape, await giveFeedback(t.ctx, user, faq.id, { helpful: true }));
    const flagged = await flagFaq(t.ctx, admin, faq.id, 'please re-check');
    expect(flagged.flaggedAt).toBeInstanceOf(Date);
    expectShape(FaqShape, flagged);
    expectShape(VoteResultShape, await voteReview(t.ctx, user, faq.id, { verdict: 'still_accurate', suggestion: 'fine' }));
    const queue = await reviewQueue(t.ctx, user, { page: 1, limit: 20 });
    expect(queue.items.length).toBeGreaterThan(0);
    expectShape(pageOf(ReviewQueueItemShape), queue);
    const staff = await staffReviewQueue(t.ctx, { page: 1, limit: 20 });
    expect(staff.items.some((i) => i.suggestions.length > 0)).toBe(true);
    expect(staff.items.some((i) => i.openReports.length > 0)).toBe(true);
    expectShape(pageOf(StaffReviewItemShape), staff);
    const reports = await listFaqReports(t.ctx, { page: 1, limit: 20 });
    expect(reports.items.length).toBeGreaterThan(0);
    expectShape(pageOf(FaqReportItemShape), reports);
    expectShape(
      FaqReportItemShape,
      await closeFaqReport(t.ctx, admin, reports.items[0]?.id as string, { status: 'resolved', note: 'fixed' }),
    );
    const cats = await listCategories(t.ctx, {});
    expect(cats.length).toBeGreaterThan(0);
    expectShape(T.Array(CategoryShape), cats);
    await suggestFaq(t.ctx, user, { question: 'Can a suggestion wait for promotion?', answer: 'Yes, as a draft.' });
    const pending = await listCommunityPending(t.ctx, { page: 1, limit: 20 });
    expect(pending.items.length).toBeGreaterThan(0);
    expectShape(pageOf(CommunityPendingItemShape), pending);
  });
});

describe('user shapes hold real results', () => {
  it('user, admin detail of a suspended user, list, data export', async () => {
    expectShape(UserShape, await getUser(t.ctx, user.id));
    expectShape(pageOf(UserShape), await listUsers(t.ctx, { page: 1, limit: 20 }));
    const target = await createUser(t.ctx, { role: 'user' });
    await suspendUser(t.ctx, admin, { userId: target.id, reason: 'spam', until: new Date(t.ctx.clock.now().getTime() + 86_400_000) });
    const detail = await getUserDetail(t.ctx, target.id);
    expect(detail.suspendedUntil).toBeInstanceOf(Date);
    expectShape(UserDetailShape, detail);
    expectShape(UserExportShape, await exportUserData(t.ctx, user.id));
  });
});

describe('community shapes hold real results', () => {
  it('post, comment, votes, accept, convert', async () => {
    const post = await createPost(t.ctx, user, { title: 'Where do the shapes live?', body: 'Looking for them.' });
    expectShape(PostShape, post);
    const other: Actor = { id: (await createUser(t.ctx)).id, role: 'user' };
    expectShape(VoteOutcomeShape, await votePost(t.ctx, other, post.id, 1));
    const comment = await addComment(t.ctx, other, post.id, 'Next to their domain, in core.');
    expectShape(CommentShape, comment);
    expectShape(VoteOutcomeShape, await voteComment(t.ctx, user, post.id, comment.id, 1));
    expectShape(pageOf(CommentShape), await listComments(t.ctx, user, post.id, { page: 1, limit: 20 }));
    const accepted = await acceptComment(t.ctx, user, post.id, comment.id);
    expect(accepted.post.answeredAt).toBeInstanceOf(Date);
    expectShape(AcceptResultShape, accepted);
    expectShape(PostShape, await getPost(t.ctx, null, post.id));
    expectShape(pageOf(PostShape), await listPosts(t.ctx, user, { page: 1, limit: 20 }));
    expectShape(ConvertResultShape, await convertPostToFaq(t.ctx, admin, post.id, {}));
  });
});

describe('AI shapes hold real results', () => {
  it('auto-answer run (no provider: escalated), queue, review, feedback and vote, calibration, what-if', async () => {
    const post = await createPost(t.ctx, user, { title: 'Does the AI answer have one shape?', body: 'Asking for the queue.' });
    const run = await runAutoAnswer(t.ctx, { trigger: 'admin', postId: post.id });
    expect(run.items.map((i) => i.postId)).toEqual([post.id]);
    expectShape(RunReportShape, run);
    const queue = await listReviewQueue(t.ctx, { page: 1, limit: 20 });
    expect(queue.items.some((i) => i.postId === post.id)).toBe(true);
    expectShape(pageOf(ReviewQueueEntryShape), queue);
    const reviewed = await reviewAiAnswer(t.ctx, admin, post.id, { action: 'approve', manualAnswer: 'Yes: in core.' });
    expectShape(AiReviewResultShape, reviewed);
    const other: Actor = { id: (await createUser(t.ctx)).id, role: 'user' };
    expectShape(AiAnswerStateShape, await voteAiAnswer(t.ctx, other, post.id, 1));
    expectShape(AiAnswerStateShape, await aiAnswerFeedback(t.ctx, user, post.id, false));
    expectShape(CalibrationShape, await calibration(t.ctx, { publishedBy: 'all' }));
    expectShape(WhatIfShape, await thresholdWhatIf(t.ctx, { approve: 0.9, suggest: 0.5 }));
  });
  it('AI configuration, providers, provider test, usage reset', async () => {
    expectShape(AiConfigShape, await getAiConfig(t.ctx));
    expectShape(ProvidersReportShape, await listAiProviders(t.ctx));
    expectShape(ProviderTestShape, await testAiProviders(t.ctx));
    expectShape(ResetUsageShape, await resetAiUsage(t.ctx, admin));
    const config = await getAiConfig(t.ctx);
    expect(config.usage.since).toBeInstanceOf(Date);
    expectShape(AiConfigShape, config);
  });
});

describe('meeting and knowledge shapes hold real results', () => {
  it('upload, meeting (list, detail, reprocess), insights, connection, health, public stats', async () => {
    const upload = await uploadTranscript(t.ctx, admin, {
      source: 'manual_raw',
      content: 'Alice: Where do response shapes live?\nBob: In core, next to their domain, declared once.',
      topic: 'Shapes sync',
    });
    expectShape(UploadResultShape, upload);
    expectShape(pageOf(MeetingShape), await listMeetings(t.ctx, { page: 1, limit: 20 }));
    expectShape(MeetingDetailShape, await getMeeting(t.ctx, upload.meetingId));
    // No AI provider in tests, so the upload extracted no insight: one as the extraction stores it.
    const [row] = await t.ctx.db
      .insert(confInsights)
      .values({
        meetingId: upload.meetingId,
        question: 'Where do response shapes live?',
        answer: 'In core, next to their domain.',
        context: 'Bob: In core, next to their domain, declared once.',
        speaker: 'Bob',
        cueStartMs: 1000,
        cueEndMs: 4000,
      })
      .returning({ id: confInsights.id });
    if (!row) throw new Error('no insight');
    const insights = await listInsights(t.ctx, { page: 1, limit: 20 });
    expect(insights.items.map((i) => i.id)).toContain(row.id);
    expectShape(pageOf(InsightShape), insights);
    expectShape(InsightShape, await updateInsight(t.ctx, admin, row.id, { status: 'approved' }));
    expectShape(ConvertInsightResultShape, await convertInsightToFaq(t.ctx, admin, row.id, { faqId: null }));
    expectShape(MeetingShape, await reprocessMeeting(t.ctx, upload.meetingId));
    expectShape(ConfConnectionShape, await confConnection(t.ctx, admin.id));
    expectShape(ConfHealthShape, await confHealth(t.ctx, admin.id));
    expectShape(ConfPublicStatsShape, await confPublicStats(t.ctx));
  });
  it('knowledge items (ingest, list, status, promote), search, chat, upvotes', async () => {
    const ingested = await ingestDocument(t.ctx, admin, { title: 'Shapes', content: 'Response shapes are declared once, in core.' });
    expect(ingested.items.length).toBeGreaterThan(0);
    expectShape(KnowledgeItemsShape, ingested);
    const [item] = ingested.items;
    if (!item) throw new Error('no item');
    expectShape(pageOf(KnowledgeItemShape), await listKnowledge(t.ctx, { page: 1, limit: 20 }));
    expectShape(KnowledgeItemShape, await setKnowledgeStatus(t.ctx, admin, item.id, 'approved'));
    expectShape(KnowledgeHitsShape, await searchKnowledgeItems(t.ctx, { q: 'response shapes' }));
    expectShape(ChatAnswerShape, await knowledgeChat(t.ctx, { q: 'Where are response shapes declared?' }));
    const post = await createPost(t.ctx, user, { title: 'Where are response shapes declared?', body: 'Asking the knowledge base.' });
    expectShape(PostChatAnswerShape, await answerPostFromKnowledge(t.ctx, post.id));
    expectShape(UpvoteKnowledgeShape, await processUpvotes(t.ctx, {}));
    expectShape(PromoteKnowledgeShape, await promoteKnowledge(t.ctx, admin, item.id, { faqId: null }));
  });
});

describe('search shapes hold real results', () => {
  it('search (cached and per source), trending, suggestions, unresolved (log, lists, stats, resolve)', async () => {
    await createFaq(t.ctx, admin, { question: 'How are search results shaped?', answer: 'One shape, in core.' });
    const search = createSearchService(t.ctx);
    try {
      const found = await search.search({ query: 'search results shaped', userId: user.id });
      expect(found.results.length).toBeGreaterThan(0);
      expectShape(SearchResponseShape, found);
      expectShape(SearchResponseShape, await search.search({ query: 'search results shaped', userId: user.id }));
      expectShape(SearchResponseShape, await search.searchSources({ query: 'search results', sources: ['faq'], modes: ['text'] }));
    } finally {
      await search.close();
    }
    expectShape(TrendingResponseShape, await trendingSearches(t.ctx, {}));
    expectShape(SuggestResponseShape, await suggestSearches(t.ctx, { q: 'how' }));
    const logged = await logUnresolvedSearch(t.ctx, { query: 'Nobody answered this yet', userId: user.id });
    expectShape(LoggedUnresolvedSearchShape, logged);
    expectShape(pageOf(PublicUnresolvedItemShape), await listOpenUnresolved(t.ctx, { page: 1, limit: 20 }));
    expectShape(pageOf(UnresolvedSearchItemShape), await adminListUnresolved(t.ctx, { page: 1, limit: 20 }));
    expectShape(UnresolvedStatsShape, await unresolvedStats(t.ctx, {}));
    expectShape(UnresolvedSearchItemShape, await resolveUnresolvedSearch(t.ctx, { id: logged.id, adminId: admin.id }));
  });
});

describe('program shapes hold real results', () => {
  it('program (created, edited, archived), list, settings (default and stored)', async () => {
    const program = await createProgram(t.ctx, { name: 'Shape cohort', startDate: '2026-01-05', endDate: '2026-03-01' });
    expectShape(ProgramShape, program);
    expectShape(ProgramShape, await updateProgram(t.ctx, program.id, { description: 'one definition' }));
    const archived = await setProgramArchived(t.ctx, program.id, true);
    expect(archived.archivedAt).toBeInstanceOf(Date);
    expectShape(ProgramShape, archived);
    expectShape(pageOf(ProgramShape), await listPrograms(t.ctx, { page: 1, limit: 20, includeArchived: true }));
    expectShape(ProgramSettingsShape, await getProgramSettings(t.ctx, program.id, { includeArchived: true }));
    const stored = await putProgramSettings(t.ctx, program.id, defaultProgramSettings('Shape cohort'));
    expect(stored.createdAt).toBeInstanceOf(Date);
    expectShape(ProgramSettingsShape, stored);
  });
});

describe('reputation and notification shapes hold real results', () => {
  it('summary with a badge, leaderboard, history, notifications (list, read, stream), tea drops', async () => {
    await adminAwardPoints(t.ctx, admin, { userId: user.id, points: 5, reason: 'helpful' });
    const summary = await adminIssueBadge(t.ctx, admin, { userId: user.id, name: 'shaper', reason: 'kept one shape' });
    expect(summary.badges.some((b) => b.name === 'shaper')).toBe(true);
    expectShape(ReputationSummaryShape, summary);
    const board = await leaderboard(t.ctx, { page: 1, limit: 20 });
    expect(board.items.length).toBeGreaterThan(0);
    expectShape(LeaderboardShape, board);
    expectShape(pageOf(ReputationLogShape), await reputationHistory(t.ctx, user.id, { page: 1, limit: 20 }));

    await notify(t.ctx.db, { userId: user.id, kind: 'mention', title: 'A shape', data: { n: 1 } });
    const list = await listNotifications(t.ctx, user.id, { page: 1, limit: 20 });
    expect(list.items.length).toBeGreaterThan(0);
    expectShape(NotificationListShape, list);
    const first = list.items[0];
    if (!first) throw new Error('no notification');
    const read = await markNotificationRead(t.ctx, user.id, first.id);
    expect(read.readAt).toBeInstanceOf(Date);
    expectShape(NotificationShape, read);
    await teaDrop(t.ctx.db, { userId: user.id, batchId: summary.batchId, kind: 'faq_approved', title: 'Fresh tea' });
    const streamed = await streamAfter(t.ctx, user.id, null);
    expect(streamed.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['notification', 'tea']));
    for (const e of streamed.events) {
      if (e.kind === 'notification') expectShape(NotificationShape, e.notification);
      else expectShape(TeaDropShape, e.tea);
    }

    const tea = await listTeaDrops(t.ctx, user.id, { page: 1, limit: 20 });
    expect(tea.items.length).toBeGreaterThan(0);
    expectShape(TeaListShape, tea);
  });
});

describe('escalation, audit and log shapes hold real results', () => {
  it('escalated post (escalated, then resolved), escalation history', async () => {
    const post = await createPost(t.ctx, user, { title: 'Nobody answers this one', body: 'Still waiting.' });
    for (let i = 0; i < t.ctx.config.UNANSWERED_ESCALATION_COMMENTS; i++) {
      const other: Actor = { id: (await createUser(t.ctx)).id, role: 'user' };
      const c = await addComment(t.ctx, other, post.id, `Not an answer ${i}`);
      await setCommentDna(t.ctx, user, post.id, c.id, true);
    }
    expect(await escalateUnansweredPosts(t.ctx)).toContain(post.id);
    const escalated = await listEscalatedPosts(t.ctx, { page: 1, limit: 20 });
    expect(escalated.items.some((p) => p.id === post.id && p.escalatedAt instanceof Date)).toBe(true);
    expectShape(pageOf(EscalatedPostShape), escalated);
    expectShape(EscalatedPostShape, await resolveEscalatedPost(t.ctx, admin, post.id, 'answered offline'));
    const history = await escalationHistory(t.ctx, { page: 1, limit: 20, postId: post.id });
    expect(history.items.length).toBeGreaterThanOrEqual(2);
    expectShape(pageOf(EscalationHistoryItemShape), history);
  });

  it('FAQ audit run (no provider: skipped), results, stats', async () => {
    const run = await runFaqAudit(t.ctx, {});
    expect(run.items.length).toBeGreaterThan(0);
    expectShape(AuditRunResultShape, run);
    const results = await listAuditResults(t.ctx, { page: 1, limit: 20 });
    expectShape(pageOf(AuditResultShape), results);
    const stats = await auditStats(t.ctx, {});
    expectShape(AuditStatsShape, stats);
  });

  it('moderation and admin logs', async () => {
    const moderation = await listAuditLogs(t.ctx, { page: 1, limit: 20 });
    expect(moderation.items.some((i) => i.until instanceof Date)).toBe(true);
    expectShape(pageOf(AuditLogItemShape), moderation);
    const adminLog = await listAuditLogs(t.ctx, { page: 1, limit: 20, kind: 'admin' });
    expect(adminLog.items.length).toBeGreaterThan(0);
    expectShape(pageOf(AuditLogItemShape), adminLog);
  });
});

/** Every response shape core exports, by module. */
const SHAPE_MODULES: Record<string, Record<string, unknown>> = {
  ai: await import('../src/ai/shape.js'),
  audit: await import('../src/audit/shape.js'),
  'auto-answer': await import('../src/auto-answer/shape.js'),
  community: await import('../src/community/shape.js'),
  conf: await import('../src/conf/shape.js'),
  'faq-audit': await import('../src/faq-audit/shape.js'),
  faqs: await import('../src/faqs/shape.js'),
  identity: await import('../src/identity/shape.js'),
  knowledge: await import('../src/knowledge/shape.js'),
  notifications: await import('../src/notifications/shape.js'),
  programs: await import('../src/programs/shape.js'),
  reputation: await import('../src/reputation/shape.js'),
  search: await import('../src/search/shape.js'),
};

/** Fields named like an enum column that mirror a text column of the same name instead. */
const TEXT_COLUMNS = new Set([
  'UsageRowShape.pipeline', // ai_usage.pipeline: text (a pipeline or a route's name)
  'EscalationHistoryItemShape.fromStatus', // post_escalation_logs: text (post or escalation statuses)
  'EscalationHistoryItemShape.toStatus',
]);

/** The non-null literal values a field lists, or null for a plain string. */
function literalValues(schema: TSchema): unknown[] | null {
  const branches = ((schema.anyOf as TSchema[] | undefined) ?? [schema]).filter((b) => b.type !== 'null');
  const values: unknown[] = [];
  for (const b of branches) {
    if (b.const !== undefined) values.push(b.const);
    else if (Array.isArray(b.enum)) values.push(...b.enum);
    else if (b.anyOf) values.push(...(literalValues(b) ?? []));
    else return null;
  }
  return values;
}

describe('response enums', () => {
  it('every field named after a database enum column lists literal values, not any string', () => {
    const enumColumns = new Set<string>();
    for (const table of Object.values(dbSchema)) {
      if (!is(table, PgTable)) continue;
      for (const [key, column] of Object.entries(getTableColumns(table))) if (column.columnType === 'PgEnumColumn') enumColumns.add(key);
    }
    expect(enumColumns).toContain('aiAnswerStatus');
    // A field is named after the shape that declares it (`UsageRowShape.pipeline`, also inside a report's rows).
    const shapes = Object.values(SHAPE_MODULES).flatMap((exports) =>
      Object.entries(exports).filter(([name]) => name.endsWith('Shape')),
    ) as [string, TSchema][];
    const named = new Map(shapes.map(([name, schema]) => [JSON.stringify(schema), name]));
    const plain: string[] = [];
    const walk = (where: string, schema: TSchema, depth: number) => {
      if (depth > 8 || !schema || typeof schema !== 'object') return;
      const owner = named.get(JSON.stringify(schema)) ?? where;
      for (const [key, field] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) {
        const name = `${owner}.${key}`;
        if (enumColumns.has(key) && field.type !== 'array' && literalValues(field) === null && !TEXT_COLUMNS.has(name)) plain.push(name);
        walk(name, field, depth + 1);
      }
      if (schema.items) walk(`${owner}[]`, schema.items as TSchema, depth + 1);
      for (const branch of [...((schema.anyOf as TSchema[]) ?? []), ...((schema.allOf as TSchema[]) ?? [])]) walk(owner, branch, depth + 1);
    };
    for (const [name, schema] of shapes) walk(name, schema, 0);
    expect(shapes.length).toBeGreaterThan(100);
    expect([...new Set(plain)]).toEqual([]);
  });

  it('the post and FAQ fields the review named list their enum values, nullable where the column is', () => {
    const community = SHAPE_MODULES.community as { PostShape: TSchema; EscalatedPostShape: TSchema };
    const faqs = SHAPE_MODULES.faqs as { FaqShape: TSchema; ReportShape: TSchema };
    const field = (shape: TSchema, key: string) => (shape.properties as Record<string, TSchema>)[key] as TSchema;
    const nullable = (schema: TSchema) => ((schema.anyOf as TSchema[] | undefined) ?? []).some((b) => b.type === 'null');
    expect(literalValues(field(community.PostShape, 'aiAnswerStatus'))).toEqual(aiAnswerStatus.enumValues);
    expect(nullable(field(community.PostShape, 'aiAnswerStatus'))).toBe(true);
    expect(literalValues(field(community.PostShape, 'aiAnswerSource'))).toEqual(aiAnswerSource.enumValues);
    expect(nullable(field(community.PostShape, 'aiAnswerSource'))).toBe(true);
    expect(literalValues(field(community.PostShape, 'escalationStatus'))).toEqual(escalationStatus.enumValues);
    expect(nullable(field(community.PostShape, 'escalationStatus'))).toBe(false);
    expect(literalValues(field(community.EscalatedPostShape, 'status'))).toEqual(postStatus.enumValues);
    expect(literalValues(field(faqs.FaqShape, 'source'))).toEqual(faqSource.enumValues);
    expect(literalValues(field(faqs.ReportShape, 'status'))).toEqual(faqReportStatus.enumValues);
  });
});
