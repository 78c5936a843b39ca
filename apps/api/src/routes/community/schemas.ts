import { Type as T } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Uuid } from '../../lib/schemas.js';
import { Faq, FreshnessTier } from '../faq/schemas.js';

const MyVote = Nullable(T.Union([T.Literal(1), T.Literal(-1)]));
const PostStatus = T.Union([T.Literal('open'), T.Literal('answered'), T.Literal('pending'), T.Literal('closed')]);

export const Post = T.Object({
  id: Uuid,
  batchId: Nullable(Uuid),
  authorId: Nullable(Uuid),
  title: T.String(),
  body: T.String(),
  status: PostStatus,
  upvotes: T.Integer(),
  downvotes: T.Integer(),
  commentCount: T.Integer(),
  acceptedCommentId: Nullable(Uuid),
  convertedFaqId: Nullable(Uuid),
  aiAnswer: Nullable(T.String({ description: 'null for non-staff readers until the answer is approved' })),
  aiAnswerConfidence: Nullable(T.Number()),
  aiAnswerStatus: Nullable(T.String()),
  aiAnswerSource: Nullable(T.String()),
  aiAnswerSuggestedAt: Nullable(DateTime),
  aiAnswerReviewedAt: Nullable(DateTime),
  aiAnswerReviewedBy: Nullable(Uuid),
  aiAnswerEscalatedAt: Nullable(DateTime),
  aiAnswerEscalatedReason: Nullable(T.String({ description: 'moderation text: staff only, null for everyone else' })),
  aiAnswerAttempts: T.Integer(),
  lastCheckedAt: Nullable(DateTime),
  escalationStatus: T.String(),
  escalatedAt: Nullable(DateTime),
  answeredAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  myVote: MyVote,
});

export const Comment = T.Object({
  id: Uuid,
  postId: Uuid,
  authorId: Nullable(Uuid),
  body: T.String(),
  upvotes: T.Integer(),
  downvotes: T.Integer(),
  isAccepted: T.Boolean(),
  isVerified: T.Boolean(),
  verifiedBy: Nullable(Uuid),
  verifiedAt: Nullable(DateTime),
  dna: T.Boolean({ description: '"does not answer": marked by the post author or staff' }),
  dnaBy: Nullable(Uuid),
  dnaAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  myVote: MyVote,
});

export const ListPostsQuery = T.Object(
  { ...PageQuery.properties, batchId: T.Optional(Uuid), status: T.Optional(PostStatus), authorId: T.Optional(Uuid) },
  { additionalProperties: false },
);

const Title = T.String({ minLength: 5, maxLength: 300, pattern: '\\S' });
const Body = T.String({ minLength: 1, maxLength: 20_000, pattern: '\\S' });

export const CreatePostBody = T.Object({ title: Title, body: Body, batchId: T.Optional(Uuid) }, { additionalProperties: false });
export const UpdatePostBody = T.Object(
  { title: T.Optional(Title), body: T.Optional(Body) },
  { additionalProperties: false, minProperties: 1 },
);
export const CommentBody = T.Object({ body: Body }, { additionalProperties: false });
export const CommentParams = T.Object({ id: Uuid, cid: Uuid });
export const VoteOutcome = T.Object({ upvotes: T.Integer(), downvotes: T.Integer(), myVote: MyVote });
export const AcceptResult = T.Object({ post: Post, comment: Comment });

export const ConvertBody = T.Object(
  {
    answer: T.Optional(Body),
    question: T.Optional(T.String({ minLength: 5, maxLength: 500, pattern: '\\S' })),
    category: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
    freshnessTier: T.Optional(FreshnessTier),
  },
  { additionalProperties: false },
);
export const ConvertResult = T.Object({ faq: Faq, post: Post });
