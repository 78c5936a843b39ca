import { aiAnswerSource, aiAnswerStatus, escalationStatus, postStatus } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { FaqShape } from '../faqs/shape.js';
import { DateTime, literals, Nullable, Uuid } from '../shared/shape.js';

/** The response shapes of the community (posts, comments, votes): declared once here, used as route schemas and, through Static, as core types. */

export const PostStatusShape = literals(postStatus.enumValues);
export type PostStatus = Static<typeof PostStatusShape>;
export const AiAnswerStatusShape = literals(aiAnswerStatus.enumValues);
export type AiAnswerStatus = Static<typeof AiAnswerStatusShape>;
/** Where a post's AI answer came from; null while it has none. */
export const AiAnswerSourceShape = Nullable(literals(aiAnswerSource.enumValues));
export const EscalationStatusShape = literals(escalationStatus.enumValues);
export type EscalationStatus = Static<typeof EscalationStatusShape>;
export const MyVoteShape = Nullable(T.Union([T.Literal(1), T.Literal(-1)]));
export type Vote = 1 | -1;

export const PostShape = T.Object({
  id: Uuid,
  batchId: Nullable(Uuid),
  authorId: Nullable(Uuid),
  title: T.String(),
  body: T.String(),
  status: PostStatusShape,
  upvotes: T.Integer(),
  downvotes: T.Integer(),
  commentCount: T.Integer(),
  acceptedCommentId: Nullable(Uuid),
  convertedFaqId: Nullable(Uuid),
  aiAnswer: Nullable(T.String({ description: 'null for non-staff readers until the answer is approved' })),
  aiAnswerConfidence: Nullable(T.Number()),
  aiAnswerStatus: Nullable(AiAnswerStatusShape),
  aiAnswerSource: AiAnswerSourceShape,
  aiAnswerSuggestedAt: Nullable(DateTime),
  aiAnswerReviewedAt: Nullable(DateTime),
  aiAnswerReviewedBy: Nullable(Uuid),
  aiAnswerEscalatedAt: Nullable(DateTime),
  aiAnswerEscalatedReason: Nullable(T.String({ description: 'moderation text: staff only, null for everyone else' })),
  aiAnswerAttempts: T.Integer(),
  lastCheckedAt: Nullable(DateTime),
  escalationStatus: EscalationStatusShape,
  escalatedAt: Nullable(DateTime),
  answeredAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  myVote: MyVoteShape,
});
export type PostView = Static<typeof PostShape>;

export const CommentShape = T.Object({
  id: Uuid,
  postId: Uuid,
  authorId: Nullable(Uuid),
  body: T.String(),
  upvotes: T.Integer(),
  downvotes: T.Integer(),
  isAccepted: T.Boolean(),
  isVerified: T.Boolean(),
  verifiedBy: Nullable(T.String({ format: 'uuid', description: 'the staff member who verified it: staff only (null to others)' })),
  verifiedAt: Nullable(DateTime),
  dna: T.Boolean({ description: '"does not answer": marked by the post author or staff' }),
  dnaBy: Nullable(
    T.String({
      format: 'uuid',
      description:
        "who marked it dna when the post's author did; a staff member's mark is null except to staff (which moderator acted is staff-only)",
    }),
  ),
  dnaAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  myVote: MyVoteShape,
});
export type CommentView = Static<typeof CommentShape>;

export const VoteOutcomeShape = T.Object({ upvotes: T.Integer(), downvotes: T.Integer(), myVote: MyVoteShape });
export type VoteOutcome = Static<typeof VoteOutcomeShape>;
export const AcceptResultShape = T.Object({ post: PostShape, comment: CommentShape });
export type AcceptResult = Static<typeof AcceptResultShape>;
export const ConvertResultShape = T.Object({ faq: FaqShape, post: PostShape });
export type ConvertResult = Static<typeof ConvertResultShape>;

/** A post in the admin escalation lists (`GET /admin/escalated-posts`). */
export const EscalatedPostShape = T.Object({
  id: Uuid,
  batchId: Nullable(Uuid),
  authorId: Nullable(Uuid),
  title: T.String(),
  body: T.String(),
  status: PostStatusShape,
  commentCount: T.Integer(),
  unansweredComments: T.Integer({ description: 'live comments marked dna, neither accepted nor verified' }),
  escalationStatus: EscalationStatusShape,
  escalatedAt: Nullable(DateTime),
  escalationResolvedAt: Nullable(DateTime),
  escalationResolvedBy: Nullable(Uuid),
  escalationNote: Nullable(T.String({ description: 'the resolve note or dismiss reason (staff only)' })),
  pendingAt: Nullable(DateTime),
  firstResponderId: Nullable(Uuid),
  firstRespondedAt: Nullable(DateTime),
  createdAt: DateTime,
});
export type EscalatedPostItem = Static<typeof EscalatedPostShape>;

export const EscalationHistoryItemShape = T.Object({
  id: Uuid,
  postId: Uuid,
  postTitle: Nullable(T.String()),
  batchId: Nullable(Uuid),
  action: T.String(),
  fromStatus: Nullable(T.String()),
  toStatus: Nullable(T.String()),
  actorId: Nullable(Uuid),
  actorName: Nullable(T.String()),
  reason: Nullable(T.String()),
  details: T.Record(T.String(), T.Unknown()),
  createdAt: DateTime,
});
export type EscalationHistoryItem = Static<typeof EscalationHistoryItemShape>;
