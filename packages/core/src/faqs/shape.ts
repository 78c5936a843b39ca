import {
  faqFlagType,
  faqPromotionStatus,
  faqReportStatus,
  faqReviewStatus,
  faqSource,
  freshnessTier,
  freshReviewVerdict,
} from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { AuditVerdictShape } from '../faq-audit/shape.js';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of the FAQ domain: declared once here, used as route schemas and, through Static, as core types. */

export const ReviewStatusShape = literals(faqReviewStatus.enumValues);
export type ReviewStatus = Static<typeof ReviewStatusShape>;
export const FreshnessTierShape = literals(freshnessTier.enumValues);
export type FreshnessTier = Static<typeof FreshnessTierShape>;
export const FlagTypeShape = literals(faqFlagType.enumValues);
export const ReviewVerdictShape = literals(freshReviewVerdict.enumValues);
export type ReviewVerdict = Static<typeof ReviewVerdictShape>;
export const FaqSourceShape = literals(faqSource.enumValues);
export type FaqSource = Static<typeof FaqSourceShape>;
export const ReportStatusShape = literals(faqReportStatus.enumValues);
export type ReportStatus = Static<typeof ReportStatusShape>;

export const FaqShape = T.Object({
  id: Uuid,
  batchId: Uuid,
  question: T.String(),
  answer: T.String(),
  category: Nullable(T.String()),
  reviewStatus: ReviewStatusShape,
  flagType: Nullable(FlagTypeShape),
  flagReason: Nullable(T.String({ description: 'moderation text: staff only, null for everyone else' })),
  lastCheckedAt: Nullable(DateTime),
  reviewCycle: T.Integer(),
  freshnessTier: FreshnessTierShape,
  lastVerifiedDate: DateTime,
  reviewIntervalDays: T.Integer({
    description:
      'days between freshness reviews: seasonal and volatile from the settings, evergreen 365 (evergreen FAQs are never auto-flagged)',
  }),
  flaggedAt: Nullable(DateTime),
  escalatedAt: Nullable(DateTime),
  source: FaqSourceShape,
  sourceId: Nullable(Uuid),
  helpfulCount: T.Integer(),
  notHelpfulCount: T.Integer(),
  viewCount: T.Integer(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type FaqView = Static<typeof FaqShape>;

export const CategoryShape = T.Object({
  id: Uuid,
  batchId: Uuid,
  name: T.String(),
  slug: T.String(),
  description: Nullable(T.String()),
  sortOrder: T.Integer(),
});
export type CategoryView = Static<typeof CategoryShape>;

export const FeedbackResultShape = T.Object({ faqId: Uuid, helpful: T.Boolean(), helpfulCount: T.Integer(), notHelpfulCount: T.Integer() });
export type FeedbackResult = Static<typeof FeedbackResultShape>;

export const ReportShape = T.Object({
  id: Uuid,
  faqId: Uuid,
  reporterId: Nullable(Uuid),
  reason: T.String(),
  status: ReportStatusShape,
  createdAt: DateTime,
});
export type ReportView = Static<typeof ReportShape>;

/** An open report as the staff review queue shows it on its FAQ (the reason is staff-only text). */
export const OpenReportShape = T.Object({
  id: Uuid,
  reporterId: Nullable(Uuid),
  reporterName: Nullable(T.String()),
  reason: T.String(),
  createdAt: DateTime,
});
export type OpenReport = Static<typeof OpenReportShape>;

/** A report in the staff listing (`GET /admin/faqs/reports`) and as closed by `PATCH /admin/faqs/reports/:id`. */
export const FaqReportItemShape = T.Object({
  id: Uuid,
  faqId: Uuid,
  batchId: Uuid,
  question: T.String({ description: "the reported FAQ's question" }),
  reporterId: Nullable(Uuid),
  reporterName: Nullable(T.String()),
  reason: T.String(),
  status: ReportStatusShape,
  resolvedBy: Nullable(Uuid),
  resolvedAt: Nullable(DateTime),
  createdAt: DateTime,
});
export type FaqReportItem = Static<typeof FaqReportItemShape>;

export const RevisionShape = T.Object({
  id: Uuid,
  faqId: Uuid,
  editorId: Nullable(Uuid),
  editorName: Nullable(T.String()),
  changes: T.Record(T.String(), T.Object({ from: T.Unknown(), to: T.Unknown() })),
  createdAt: DateTime,
});
export type RevisionView = Static<typeof RevisionShape>;

export const TallyShape = T.Object({ stillAccurate: T.Integer(), needsUpdate: T.Integer() });
export type Tally = Static<typeof TallyShape>;

export const VoteResultShape = T.Object({
  faqId: Uuid,
  cycle: T.Integer(),
  reviewStatus: ReviewStatusShape,
  tally: TallyShape,
  myVote: ReviewVerdictShape,
});
export type VoteResult = Static<typeof VoteResultShape>;

export const ReviewQueueItemShape = T.Composite([FaqShape, T.Object({ tally: TallyShape, myVote: Nullable(ReviewVerdictShape) })]);
export type ReviewQueueItem = Static<typeof ReviewQueueItemShape>;

export const ReviewSuggestionShape = T.Object({
  voterId: Nullable(Uuid),
  voterName: Nullable(T.String()),
  verdict: ReviewVerdictShape,
  suggestion: T.String(),
  createdAt: DateTime,
});
export type ReviewSuggestion = Static<typeof ReviewSuggestionShape>;

export const LatestAuditShape = T.Object({
  id: Uuid,
  verdict: AuditVerdictShape,
  score: Nullable(T.Number()),
  confidence: Nullable(T.Number()),
  flagged: T.Boolean(),
  reason: Nullable(T.String()),
  sources: T.Array(T.String()),
  checkedAt: DateTime,
});
export type LatestAudit = Static<typeof LatestAuditShape>;

/** How many open reports a review queue item carries; `openReportCount` counts them all. */
export const OPEN_REPORTS_PER_ITEM = 20;

export const StaffReviewItemShape = T.Composite([
  FaqShape,
  T.Object({
    tally: TallyShape,
    suggestions: T.Array(ReviewSuggestionShape, { description: "the voters' suggestions of the current review cycle, oldest first" }),
    latestAudit: Nullable(LatestAuditShape),
    openReportCount: T.Integer({ description: 'open user reports on the FAQ' }),
    openReports: T.Array(OpenReportShape, {
      description: `the open reports, newest first, at most ${OPEN_REPORTS_PER_ITEM} (all of them: GET /admin/faqs/reports?faqId=)`,
    }),
  }),
]);
export type StaffReviewItem = Static<typeof StaffReviewItemShape>;

export const CommunityPendingItemShape = T.Composite([
  FaqShape,
  T.Object({
    promotionStatus: Nullable(literals(faqPromotionStatus.enumValues)),
    promotionEligibleAt: Nullable(DateTime),
    objectionCount: T.Integer(),
    support: Nullable(T.Integer({ description: 'net votes of the source post; null for suggestions' })),
    autoPromotable: T.Boolean({ description: 'whether the next promotion cycle would approve it' }),
    lastObjection: Nullable(T.Object({ reason: Nullable(T.String()), actorId: Nullable(Uuid), createdAt: DateTime })),
  }),
]);
export type CommunityPendingItem = Static<typeof CommunityPendingItemShape>;
