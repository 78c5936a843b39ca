import { type Static, Type as T, type TSchema } from '@sinclair/typebox';
import { FaqShape } from '../faqs/shape.js';
import { DateTime, Nullable, pageOf, Uuid } from '../shared/shape.js';
import { INTERVALS, MAX_BUCKETS, MAX_RANGE_DAYS } from './range.js';

/**
 * Request and response shapes of the analytics and admin dashboard routes (TypeBox, so the API
 * validates and documents exactly what core returns).
 */
const Day = T.String({ format: 'date', description: 'YYYY-MM-DD (UTC)' });
const DayInput = T.String({ format: 'date', pattern: '^(19|2[0-9])[0-9]{2}-', description: 'YYYY-MM-DD (UTC), year 1900 to 2999' });
const Count = T.Integer({ minimum: 0 });
const Rate = Nullable(T.Number({ minimum: 0, maximum: 1, description: 'a share from 0 to 1, 4 decimals; null when its whole is zero' }));

const RANGE_DOC =
  `from and to are UTC days, both inclusive; without from, the 30 days up to to; without to, today. ` +
  `A range spans at most ${MAX_RANGE_DAYS} days and a series at most ${MAX_BUCKETS} buckets; from after to, a bad date or a longer range answer 400 naming the field.`;

const rangeProps = {
  from: T.Optional(DayInput),
  to: T.Optional(DayInput),
  batchId: T.Optional(T.String({ format: 'uuid', description: 'one program; all programs when absent' })),
};
const intervalProp = {
  interval: T.Optional(
    T.Union(
      INTERVALS.map((i) => T.Literal(i)),
      { default: 'day', description: 'series bucket' },
    ),
  ),
};
const topProp = { limit: T.Optional(T.Integer({ minimum: 1, maximum: 50, default: 10, description: 'length of each top list' })) };

export const RangeQuery = T.Object(rangeProps, { additionalProperties: false, description: RANGE_DOC });
export const SeriesQuery = T.Object({ ...rangeProps, ...intervalProp }, { additionalProperties: false, description: RANGE_DOC });
export const TopQuery = T.Object({ ...rangeProps, ...intervalProp, ...topProp }, { additionalProperties: false, description: RANGE_DOC });
export type RangeQueryInput = Static<typeof TopQuery>;

export const RangeView = T.Object({ from: Day, to: Day, interval: T.Union(INTERVALS.map((i) => T.Literal(i))) });
const Scope = { range: RangeView, batchId: Nullable(Uuid) };
const bucketOf = <P extends Record<string, TSchema>>(props: P) => T.Object({ bucket: Day, ...props });

export const QueryCount = T.Object({
  query: T.String({ description: 'normalised (trimmed, lower-case)' }),
  searches: Count,
  zeroResults: Count,
});
export const UnresolvedItem = T.Object({ id: Uuid, query: T.String(), count: Count, lastSeenAt: DateTime });

export const SearchAnalytics = T.Object({
  ...Scope,
  searches: Count,
  zeroResults: Count,
  zeroResultRate: Rate,
  cacheHits: Count,
  cacheHitRate: Rate,
  series: T.Array(bucketOf({ searches: Count, zeroResults: Count, cacheHits: Count })),
  topQueries: T.Array(QueryCount),
  unresolved: T.Object({
    open: Count,
    resolved: T.Integer({ minimum: 0, description: 'resolved within the range' }),
    top: T.Array(UnresolvedItem, { description: 'open unresolved searches, most logged first' }),
  }),
});
export type SearchAnalytics = Static<typeof SearchAnalytics>;

export const CommunityAnalytics = T.Object({
  ...Scope,
  posts: T.Integer({ minimum: 0, description: 'posts created in the range (not deleted)' }),
  answered: T.Integer({ minimum: 0, description: 'of those, posts that have an answer (answeredAt set)' }),
  answerRate: Rate,
  medianTimeToFirstAnswerHours: Nullable(T.Number({ description: 'median of answeredAt - createdAt over the answered posts, 2 decimals' })),
  autoAnswer: T.Object({
    attempted: T.Integer({ minimum: 0, description: 'posts the auto-answer pipeline gave an answer or a verdict' }),
    autoApproved: T.Integer({ minimum: 0, description: 'published by the pipeline without review' }),
    autoAnswerRate: Rate,
    reviewed: T.Integer({ minimum: 0, description: 'AI answers an admin reviewed' }),
    approved: T.Integer({ minimum: 0, description: 'of those, approved (as is or edited)' }),
    approvalRate: Rate,
  }),
  series: T.Array(bucketOf({ posts: Count, answered: Count })),
});
export type CommunityAnalytics = Static<typeof CommunityAnalytics>;

export const Overview = T.Object({
  ...Scope,
  posts: T.Object({ created: Count, answered: Count, answerRate: Rate }),
  searches: T.Object({ total: Count, zeroResultRate: Rate, cacheHitRate: Rate }),
  faqs: T.Object({
    created: T.Integer({ minimum: 0, description: 'FAQs created in the range' }),
    live: T.Integer({ minimum: 0, description: 'approved or verified now' }),
    needsReview: T.Integer({ minimum: 0, description: 'pending_review or update_requested now' }),
  }),
  users: T.Object({
    new: T.Integer({ minimum: 0, description: 'accounts created in the range (users belong to no program)' }),
    activeContributors: T.Integer({ minimum: 0, description: 'distinct authors of posts or comments in the range' }),
  }),
  unresolvedOpen: Count,
});
export type Overview = Static<typeof Overview>;

const REVIEW_STATUSES = ['approved', 'pending_review', 'draft', 'verified', 'update_requested'] as const;
const POST_STATUSES = ['open', 'answered', 'pending', 'closed'] as const;
const FAQ_SOURCES = ['manual', 'suggestion', 'community_post', 'conf_insight', 'transcript_knowledge'] as const;
const countsOf = (keys: readonly string[]) => T.Object(Object.fromEntries(keys.map((k) => [k, Count])));

export const AdminStatsQuery = T.Object(
  { batchId: T.Optional(T.String({ format: 'uuid', description: 'one program; all programs when absent (users belong to none)' })) },
  { additionalProperties: false },
);
export const AdminStats = T.Object({
  batchId: Nullable(Uuid),
  generatedAt: DateTime,
  users: T.Object({ total: Count, admins: Count, moderators: Count, suspended: Count }),
  faqs: T.Object({ total: Count, byReviewStatus: countsOf(REVIEW_STATUSES) }),
  posts: T.Object({
    total: Count,
    byStatus: countsOf(POST_STATUSES),
    escalated: T.Integer({ minimum: 0, description: 'escalationStatus escalated now' }),
    aiAwaitingReview: T.Integer({ minimum: 0, description: 'AI answers suggested or escalated, waiting for an admin' }),
  }),
  searches: T.Object({
    today: Count,
    last7Days: T.Integer({ minimum: 0, description: 'today and the 6 UTC days before' }),
    last30Days: Count,
  }),
  unresolvedOpen: Count,
});
export type AdminStats = Static<typeof AdminStats>;

export const AdminFaqsQuery = T.Object(
  {
    page: T.Optional(T.Integer({ minimum: 1, maximum: 10_000, default: 1 })),
    limit: T.Optional(T.Integer({ minimum: 1, maximum: 100, default: 20 })),
    batchId: T.Optional(T.String({ format: 'uuid', description: 'one program; all programs when absent' })),
    reviewStatus: T.Optional(T.Union(REVIEW_STATUSES.map((s) => T.Literal(s)))),
    freshnessTier: T.Optional(T.Union([T.Literal('evergreen'), T.Literal('seasonal'), T.Literal('volatile')])),
    freshness: T.Optional(
      T.Union([T.Literal('due'), T.Literal('fresh')], {
        description: 'due: a seasonal or volatile FAQ whose lastVerifiedDate + reviewIntervalDays has passed; fresh: every other FAQ',
      }),
    ),
    flagType: T.Optional(T.Union([T.Literal('manual'), T.Literal('auto')])),
    sort: T.Optional(
      T.Union([T.Literal('updated'), T.Literal('created'), T.Literal('reviewDue')], {
        default: 'updated',
        description: 'updated, created (newest first) or reviewDue (soonest due first, evergreen last)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AdminFaqsQuery = Static<typeof AdminFaqsQuery>;
export const FaqFreshness = T.Object({
  reviewDueAt: Nullable(DateTime),
  due: T.Boolean({ description: 'reviewDueAt (lastVerifiedDate + reviewIntervalDays; null for evergreen, never due) has passed' }),
});
export const AdminFaqItem = T.Composite([FaqShape, FaqFreshness]);
export type AdminFaqItem = Static<typeof AdminFaqItem>;
export const AdminFaqList = pageOf(AdminFaqItem);

export const FaqGrowth = T.Object({
  ...Scope,
  before: T.Integer({ minimum: 0, description: 'FAQs created before from' }),
  created: Count,
  bySource: countsOf(FAQ_SOURCES),
  series: T.Array(
    bucketOf({ created: Count, cumulative: T.Integer({ minimum: 0, description: 'FAQs that existed at the end of the bucket' }) }),
  ),
});
export type FaqGrowth = Static<typeof FaqGrowth>;

export const Contributor = T.Object({ userId: Uuid, name: T.String(), posts: Count, comments: Count });
export const AdminCommunity = T.Object({
  ...Scope,
  posts: T.Object({
    created: Count,
    byStatus: countsOf(POST_STATUSES),
    escalated: T.Integer({ minimum: 0, description: 'of the range posts, escalationStatus escalated now' }),
    answerRate: Rate,
    medianTimeToFirstAnswerHours: Nullable(T.Number()),
  }),
  comments: T.Object({ created: Count, accepted: T.Integer({ minimum: 0, description: 'of those, accepted as the answer' }) }),
  topContributors: T.Array(Contributor, { description: 'by posts plus comments in the range' }),
});
export type AdminCommunity = Static<typeof AdminCommunity>;

export const CommunityChart = T.Object({ ...Scope, series: T.Array(bucketOf({ posts: Count, comments: Count, answered: Count })) });
export type CommunityChart = Static<typeof CommunityChart>;

export const CommunityGrowth = T.Object({
  ...Scope,
  before: T.Object(
    { posts: Count, comments: Count, members: Count },
    { description: 'the totals before the range, where the running totals start' },
  ),
  series: T.Array(
    bucketOf({
      posts: Count,
      comments: Count,
      members: T.Integer({ minimum: 0, description: 'accounts created (users belong to no program)' }),
      cumulativePosts: Count,
      cumulativeComments: Count,
      cumulativeMembers: Count,
    }),
  ),
});
export type CommunityGrowth = Static<typeof CommunityGrowth>;

export const SearchInsights = T.Object({
  ...Scope,
  searches: Count,
  zeroResultRate: Rate,
  cacheHitRate: Rate,
  degradedRate: Rate,
  avgLatencyMs: Nullable(T.Number()),
  topQueries: T.Array(QueryCount),
  zeroResultQueries: T.Array(QueryCount, { description: 'queries that found nothing, most often first' }),
  unresolved: T.Object({ open: Count, resolved: Count, top: T.Array(UnresolvedItem) }),
});
export type SearchInsights = Static<typeof SearchInsights>;

export const UserActivity = T.Object({
  ...Scope,
  totals: T.Object({
    newUsers: Count,
    activeUsers: T.Integer({ minimum: 0, description: 'distinct authors of posts or comments in the range' }),
  }),
  series: T.Array(bucketOf({ newUsers: Count, activeUsers: Count })),
});
export type UserActivity = Static<typeof UserActivity>;
