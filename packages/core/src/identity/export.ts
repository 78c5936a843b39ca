import {
  aiAnswerVotes,
  aiQuestions,
  badges,
  comments,
  commentVotes,
  communityPosts,
  confMeetings,
  faqFeedback,
  faqReports,
  faqRevisions,
  faqs,
  freshReviewLogs,
  freshReviewVotes,
  moderationLogs,
  notificationSettings,
  notifications,
  postVotes,
  reputationLogs,
  searchLogs,
  supportRequests,
  teaNotifications,
  unresolvedSearches,
} from '@cfaq/db/schema/index';
import { and, arrayContains, asc, eq, or, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { searchClientKey } from '../search/client-key.js';
import type { UserExport } from './shape.js';
import { getUser } from './users.js';

/** JSON-safe copy: dates become ISO strings. */
type Row = Record<string, unknown>;
const plain = <T>(rows: T[]): Row[] => JSON.parse(JSON.stringify(rows));

/**
 * A suggested FAQ's field as its author wrote it: the `from` of the first revision that changed it,
 * else the row's value. Staff edit a suggestion (a draft) before publishing it, and draft text is
 * staff-only; the author's own words are theirs to export, a staff member's rewrite is not.
 */
const asSuggested = (field: 'question' | 'answer') => {
  const key = sql.raw(`'${field}'`);
  // Qualified by hand: drizzle writes a one-table select's columns unqualified, and the subquery's
  // own columns would then shadow the outer row's.
  return sql<string>`coalesce((
    select r.changes -> ${key} ->> 'from' from ${faqRevisions} r
    where r.faq_id = faqs.id and r.changes -> ${key} is not null
    order by r.created_at, r.id limit 1
  ), ${faqs[field]})`;
};

/**
 * Everything the service holds about the caller, and nothing of anyone else's: rows are selected by
 * the caller's id only, with explicit columns (no embeddings, no secrets, no transcripts, no other
 * users' names or emails). Personal tea drops only, not program-wide ones.
 */
export async function exportUserData(ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>, userId: string): Promise<UserExport> {
  const profile = await getUser(ctx, userId);
  const db = ctx.db;
  const [posts, myComments, pv, cv, fv, fb, notes, tea, settings, rep, myBadges] = await Promise.all([
    db
      .select({
        id: communityPosts.id,
        batchId: communityPosts.batchId,
        title: communityPosts.title,
        body: communityPosts.body,
        status: communityPosts.status,
        upvotes: communityPosts.upvotes,
        downvotes: communityPosts.downvotes,
        commentCount: communityPosts.commentCount,
        // Only an approved AI answer is the author's to see; suggested, escalated and rejected ones are staff-only.
        aiAnswer: sql<string | null>`case when ${communityPosts.aiAnswerStatus} = 'approved' then ${communityPosts.aiAnswer} end`,
        aiAnswerStatus: sql<
          string | null
        >`case when ${communityPosts.aiAnswerStatus} = 'approved' then ${communityPosts.aiAnswerStatus}::text end`,
        escalationStatus: communityPosts.escalationStatus,
        deletedAt: communityPosts.deletedAt,
        createdAt: communityPosts.createdAt,
        updatedAt: communityPosts.updatedAt,
      })
      .from(communityPosts)
      .where(eq(communityPosts.authorId, userId))
      .orderBy(asc(communityPosts.createdAt)),
    db
      .select({
        id: comments.id,
        postId: comments.postId,
        body: comments.body,
        upvotes: comments.upvotes,
        downvotes: comments.downvotes,
        isAccepted: comments.isAccepted,
        isVerified: comments.isVerified,
        deletedAt: comments.deletedAt,
        createdAt: comments.createdAt,
        updatedAt: comments.updatedAt,
      })
      .from(comments)
      .where(eq(comments.authorId, userId))
      .orderBy(asc(comments.createdAt)),
    db
      .select({ postId: postVotes.postId, value: postVotes.value, createdAt: postVotes.createdAt })
      .from(postVotes)
      .where(eq(postVotes.userId, userId)),
    db
      .select({ commentId: commentVotes.commentId, value: commentVotes.value, createdAt: commentVotes.createdAt })
      .from(commentVotes)
      .where(eq(commentVotes.userId, userId)),
    db
      .select({
        faqId: freshReviewVotes.faqId,
        cycle: freshReviewVotes.cycle,
        verdict: freshReviewVotes.verdict,
        suggestion: freshReviewVotes.suggestion,
        createdAt: freshReviewVotes.createdAt,
      })
      .from(freshReviewVotes)
      .where(eq(freshReviewVotes.voterId, userId)),
    db
      .select({ faqId: faqFeedback.faqId, helpful: faqFeedback.helpful, comment: faqFeedback.comment, createdAt: faqFeedback.createdAt })
      .from(faqFeedback)
      .where(eq(faqFeedback.userId, userId)),
    db
      .select({
        id: notifications.id,
        kind: notifications.kind,
        title: notifications.title,
        body: notifications.body,
        link: notifications.link,
        data: notifications.data,
        readAt: notifications.readAt,
        createdAt: notifications.createdAt,
      })
      .from(notifications)
      .where(eq(notifications.userId, userId))
      .orderBy(asc(notifications.createdAt)),
    db
      .select({
        id: teaNotifications.id,
        kind: teaNotifications.kind,
        title: teaNotifications.title,
        body: teaNotifications.body,
        link: teaNotifications.link,
        createdAt: teaNotifications.createdAt,
      })
      .from(teaNotifications)
      .where(eq(teaNotifications.userId, userId))
      .orderBy(asc(teaNotifications.createdAt)),
    db
      .select({
        inApp: notificationSettings.inApp,
        email: notificationSettings.email,
        teaDrops: notificationSettings.teaDrops,
        kinds: notificationSettings.kinds,
      })
      .from(notificationSettings)
      .where(eq(notificationSettings.userId, userId)),
    db
      .select({
        id: reputationLogs.id,
        batchId: reputationLogs.batchId,
        points: reputationLogs.points,
        reason: reputationLogs.reason,
        createdAt: reputationLogs.createdAt,
      })
      .from(reputationLogs)
      .where(eq(reputationLogs.userId, userId))
      .orderBy(asc(reputationLogs.createdAt)),
    db
      .select({
        id: badges.id,
        batchId: badges.batchId,
        name: badges.name,
        reason: badges.reason,
        awardedAt: badges.awardedAt,
        revokedAt: badges.revokedAt,
      })
      .from(badges)
      .where(eq(badges.userId, userId)),
  ]);
  const [mod, reports, support, searches, unresolved, questions, meetings, suggestions, flags, aiVotes] = await Promise.all([
    db
      .select({
        action: moderationLogs.action,
        reason: moderationLogs.reason,
        until: moderationLogs.until,
        createdAt: moderationLogs.createdAt,
      })
      .from(moderationLogs)
      .where(eq(moderationLogs.targetUserId, userId))
      .orderBy(asc(moderationLogs.createdAt)),
    db
      .select({
        id: faqReports.id,
        faqId: faqReports.faqId,
        reason: faqReports.reason,
        status: faqReports.status,
        createdAt: faqReports.createdAt,
      })
      .from(faqReports)
      .where(eq(faqReports.reporterId, userId)),
    db
      .select({
        id: supportRequests.id,
        subject: supportRequests.subject,
        body: supportRequests.body,
        status: supportRequests.status,
        createdAt: supportRequests.createdAt,
      })
      .from(supportRequests)
      .where(eq(supportRequests.userId, userId)),
    db
      .select({ query: searchLogs.query, resultCount: searchLogs.resultCount, count: searchLogs.count, createdAt: searchLogs.createdAt })
      .from(searchLogs)
      .where(eq(searchLogs.userId, userId))
      .orderBy(asc(searchLogs.createdAt)),
    db
      .select({ query: unresolvedSearches.query, status: unresolvedSearches.status, createdAt: unresolvedSearches.createdAt })
      .from(unresolvedSearches)
      // One row per query gathers its searchers: the first is its user_id, each signed-in one a client key.
      .where(
        or(
          eq(unresolvedSearches.userId, userId),
          arrayContains(unresolvedSearches.clientKeys, [searchClientKey('', { userId }) as string]),
        ),
      ),
    db
      .select({ id: aiQuestions.id, question: aiQuestions.question, answer: aiQuestions.answer, createdAt: aiQuestions.createdAt })
      .from(aiQuestions)
      .where(eq(aiQuestions.userId, userId)),
    db
      .select({
        id: confMeetings.id,
        topic: confMeetings.topic,
        status: confMeetings.status,
        sourcing: confMeetings.sourcing,
        startTime: confMeetings.startTime,
        createdAt: confMeetings.createdAt,
      })
      .from(confMeetings)
      .where(eq(confMeetings.userId, userId)),
    db
      .select({
        id: faqs.id,
        question: asSuggested('question'),
        answer: asSuggested('answer'),
        reviewStatus: faqs.reviewStatus,
        createdAt: faqs.createdAt,
      })
      .from(faqs)
      .where(and(eq(faqs.createdBy, userId), eq(faqs.source, 'suggestion')))
      .orderBy(asc(faqs.createdAt)),
    // The caller's own flags (POST /faq/:id/flag) with the reason they gave; automatic flags have no actor.
    db
      .select({ faqId: freshReviewLogs.faqId, reason: freshReviewLogs.reason, createdAt: freshReviewLogs.createdAt })
      .from(freshReviewLogs)
      .where(and(eq(freshReviewLogs.actorId, userId), eq(freshReviewLogs.action, 'flagged')))
      .orderBy(asc(freshReviewLogs.createdAt)),
    db
      .select({ postId: aiAnswerVotes.postId, value: aiAnswerVotes.value, createdAt: aiAnswerVotes.createdAt })
      .from(aiAnswerVotes)
      .where(eq(aiAnswerVotes.userId, userId)),
  ]);
  return {
    exportedAt: ctx.clock.now(),
    profile,
    posts: plain(posts),
    comments: plain(myComments),
    votes: { posts: plain(pv), comments: plain(cv), aiAnswers: plain(aiVotes), faqReviews: plain(fv), faqFeedback: plain(fb) },
    notifications: plain(notes),
    teaDrops: plain(tea),
    notificationSettings: plain(settings)[0] ?? null,
    reputation: { total: profile.reputation, history: plain(rep), badges: plain(myBadges) },
    moderation: plain(mod),
    activity: {
      faqReports: plain(reports),
      faqSuggestions: plain(suggestions),
      faqFlags: plain(flags),
      supportRequests: plain(support),
      searches: plain(searches),
      unresolvedSearches: plain(unresolved),
      aiQuestions: plain(questions),
      meetings: plain(meetings),
    },
  };
}
