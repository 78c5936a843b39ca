import { FlagTypeShape as FlagType, ReviewStatusShape as ReviewStatus } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { PageQuery, Uuid, VisibleText } from '../../lib/schemas.js';

export {
  CommunityPendingItemShape as CommunityPendingItem,
  FaqReportItemShape as FaqReportItem,
  StaffReviewItemShape as StaffReviewItem,
} from '@cfaq/core';

export const EscalatedQuery = T.Object(
  { ...PageQuery.properties, batchId: T.Optional(Uuid), flagType: T.Optional(FlagType) },
  { additionalProperties: false },
);
export const ReviewQueueQuery = T.Object(
  {
    ...PageQuery.properties,
    batchId: T.Optional(Uuid),
    flagType: T.Optional(FlagType),
    reviewStatus: T.Optional({
      ...ReviewStatus,
      description: 'that status only: pending_review or update_requested FAQs, or the reported FAQs of any other status',
    }),
    reported: T.Optional(
      T.Boolean({ description: 'true: only FAQs with an open report (any review status); false: only FAQs without one' }),
    ),
  },
  { additionalProperties: false },
);

export const ReportListQuery = T.Object(
  {
    ...PageQuery.properties,
    status: T.Optional(
      T.Union([T.Literal('open'), T.Literal('resolved'), T.Literal('dismissed'), T.Literal('all')], {
        default: 'open',
        description: 'open (default), resolved, dismissed, or all',
      }),
    ),
    faqId: T.Optional(Uuid),
    batchId: T.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const CloseReportBody = T.Object(
  {
    status: T.Union([T.Literal('resolved'), T.Literal('dismissed')], {
      description: 'resolved: acted on (the FAQ was fixed); dismissed: nothing to do',
    }),
    note: T.Optional(VisibleText(1, 2000, { description: 'why; written to the admin log' })),
  },
  { additionalProperties: false },
);

export const DismissBody = T.Object(
  { reason: VisibleText(3, 2000, { visible: 1, description: 'written to the admin log' }) },
  { additionalProperties: false },
);
export const ObjectBody = T.Object(
  { reason: VisibleText(3, 2000, { visible: 1, description: 'written to the admin log' }) },
  { additionalProperties: false },
);

export const CommunityPendingQuery = T.Object(
  {
    ...PageQuery.properties,
    batchId: T.Optional(Uuid),
    status: T.Optional(
      T.Union([T.Literal('community_pending'), T.Literal('objected'), T.Literal('all')], {
        default: 'community_pending',
        description: 'community_pending (default), objected, or all of both',
      }),
    ),
  },
  { additionalProperties: false },
);
