import { faqs } from '@cfaq/db/schema/index';
import type { Config } from '../config/schema.js';

/** Every FAQ column a reader may see: never the embedding or the generated search vector. */
export const faqColumns = {
  id: faqs.id,
  batchId: faqs.batchId,
  question: faqs.question,
  answer: faqs.answer,
  category: faqs.category,
  reviewStatus: faqs.reviewStatus,
  flagType: faqs.flagType,
  flagReason: faqs.flagReason,
  lastCheckedAt: faqs.lastCheckedAt,
  reviewCycle: faqs.reviewCycle,
  freshnessTier: faqs.freshnessTier,
  lastVerifiedDate: faqs.lastVerifiedDate,
  reviewIntervalDays: faqs.reviewIntervalDays,
  flaggedAt: faqs.flaggedAt,
  escalatedAt: faqs.escalatedAt,
  source: faqs.source,
  sourceId: faqs.sourceId,
  helpfulCount: faqs.helpfulCount,
  notHelpfulCount: faqs.notHelpfulCount,
  viewCount: faqs.viewCount,
  createdAt: faqs.createdAt,
  updatedAt: faqs.updatedAt,
};

export type FaqRow = { [K in keyof typeof faqColumns]: (typeof faqs.$inferSelect)[K] };
export type ReviewStatus = FaqRow['reviewStatus'];
export type FreshnessTier = FaqRow['freshnessTier'];

export interface FaqView {
  id: string;
  batchId: string;
  question: string;
  answer: string;
  category: string | null;
  reviewStatus: ReviewStatus;
  flagType: 'manual' | 'auto' | null;
  flagReason: string | null;
  lastCheckedAt: string | null;
  reviewCycle: number;
  freshnessTier: FreshnessTier;
  lastVerifiedDate: string;
  reviewIntervalDays: number | null;
  flaggedAt: string | null;
  escalatedAt: string | null;
  source: FaqRow['source'];
  sourceId: string | null;
  helpfulCount: number;
  notHelpfulCount: number;
  viewCount: number;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toFaqView = (r: FaqRow): FaqView => ({
  ...r,
  lastCheckedAt: iso(r.lastCheckedAt),
  lastVerifiedDate: r.lastVerifiedDate.toISOString(),
  flaggedAt: iso(r.flaggedAt),
  escalatedAt: iso(r.escalatedAt),
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** reviewIntervalDays follows the tier; evergreen FAQs are never due (null). */
export function reviewIntervalFor(config: Pick<Config, 'FAQ_SEASONAL_DAYS' | 'FAQ_VOLATILE_DAYS'>, tier: FreshnessTier): number | null {
  if (tier === 'seasonal') return config.FAQ_SEASONAL_DAYS;
  if (tier === 'volatile') return config.FAQ_VOLATILE_DAYS;
  return null;
}
