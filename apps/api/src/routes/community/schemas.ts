import { FreshnessTierShape as FreshnessTier, PostStatusShape as PostStatus } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';

export {
  AcceptResultShape as AcceptResult,
  CommentShape as Comment,
  ConvertResultShape as ConvertResult,
  PostShape as Post,
  VoteOutcomeShape as VoteOutcome,
} from '@cfaq/core';

export const ListPostsQuery = T.Object(
  { ...PageQuery.properties, batchId: T.Optional(Uuid), status: T.Optional(PostStatus), authorId: T.Optional(Uuid) },
  { additionalProperties: false },
);

const Title = VisibleText(5, 300);
const Body = VisibleText(1, 20_000);

export const CreatePostBody = T.Object({ title: Title, body: Body, batchId: T.Optional(Uuid) }, { additionalProperties: false });
export const UpdatePostBody = T.Object(
  { title: T.Optional(Title), body: T.Optional(Body) },
  { additionalProperties: false, minProperties: 1 },
);
export const CommentBody = T.Object({ body: Body }, { additionalProperties: false });
export const CommentParams = T.Object({ id: Uuid, cid: Uuid });

export const ConvertBody = T.Object(
  {
    answer: T.Optional(Body),
    question: T.Optional(VisibleText(5, 500)),
    category: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
    freshnessTier: T.Optional(FreshnessTier),
  },
  { additionalProperties: false },
);
