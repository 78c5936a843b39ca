import { faqs } from '@cfaq/db/schema/index';
import type { Config } from '../config/schema.js';
import { type Actor, isStaff } from '../shared/db.js';
import type { FaqView, FreshnessTier } from './shape.js';

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

/**
 * A FAQ as `reader` may see it. Flag reasons are moderation text: anyone signed in may flag, with
 * any text (a phishing link included), and audit reasons come from an AI, so only staff read them;
 * everyone else gets null (flagType and flaggedAt stay visible). Every FAQ read path goes through
 * here with its caller, so no path can forget.
 */
export const toFaqView = (r: FaqRow, reader: Actor | null): FaqView => ({
  ...r,
  flagReason: isStaff(reader) ? r.flagReason : null,
  reviewIntervalDays: r.reviewIntervalDays ?? EVERGREEN_REVIEW_INTERVAL_DAYS,
});

/**
 * The reviewIntervalDays of an evergreen FAQ. The spec types the field as a number for every FAQ;
 * evergreen FAQs are never auto-flagged whatever the number (the freshness check skips the tier),
 * so a year is informational: the interval a reader may expect a re-read at most.
 */
export const EVERGREEN_REVIEW_INTERVAL_DAYS = 365;

/** reviewIntervalDays follows the tier (evergreen: EVERGREEN_REVIEW_INTERVAL_DAYS, never due). */
export function reviewIntervalFor(config: Pick<Config, 'FAQ_SEASONAL_DAYS' | 'FAQ_VOLATILE_DAYS'>, tier: FreshnessTier): number {
  if (tier === 'seasonal') return config.FAQ_SEASONAL_DAYS;
  if (tier === 'volatile') return config.FAQ_VOLATILE_DAYS;
  return EVERGREEN_REVIEW_INTERVAL_DAYS;
}
