import { pgEnum } from 'drizzle-orm/pg-core';

// Values are the spec's, verbatim. Where the spec says "others not shown" the extra values are
// documented in the README's "Contract choices".
export const userRole = pgEnum('user_role', ['user', 'moderator', 'admin']);
export const userStatus = pgEnum('user_status', ['active', 'suspended']);

export const faqReviewStatus = pgEnum('faq_review_status', ['approved', 'pending_review', 'draft', 'verified', 'update_requested']);
export const faqFlagType = pgEnum('faq_flag_type', ['manual', 'auto']);
export const freshnessTier = pgEnum('freshness_tier', ['evergreen', 'seasonal', 'volatile']);
export const faqPromotionStatus = pgEnum('faq_promotion_status', ['community_pending', 'promoted', 'objected']);
export const faqSource = pgEnum('faq_source', ['manual', 'suggestion', 'community_post', 'conf_insight', 'transcript_knowledge']);
export const faqReportStatus = pgEnum('faq_report_status', ['open', 'resolved', 'dismissed']);

export const postStatus = pgEnum('post_status', ['open', 'answered', 'pending', 'closed']);
export const aiAnswerStatus = pgEnum('ai_answer_status', ['approved', 'suggested', 'escalated', 'rejected']);
export const aiAnswerSource = pgEnum('ai_answer_source', ['faq_knowledge', 'ai_generated', 'manual']);
export const escalationStatus = pgEnum('escalation_status', ['none', 'escalated', 'resolved', 'dismissed']);

export const pipelineName = pgEnum('pipeline_name', ['auto_answer', 'faq_audit']);
export const pipelineTargetModel = pgEnum('pipeline_target_model', ['CommunityPost', 'FAQ']);
export const pipelineVerdict = pgEnum('pipeline_verdict', [
  'approved',
  'suggested',
  'escalated',
  'correct',
  'drift_detected',
  'contradiction',
  'stale',
  'skipped',
]);

export const freshReviewVerdict = pgEnum('fresh_review_verdict', ['still_accurate', 'needs_update']);

export const confMeetingStatus = pgEnum('conf_meeting_status', ['pending', 'completed', 'failed']);
export const confSourcing = pgEnum('conf_sourcing', ['webhook', 'manual_vtt', 'manual_raw', 'backfill']);
export const confInsightStatus = pgEnum('conf_insight_status', ['pending_review', 'approved', 'rejected']);
export const knowledgeStatus = pgEnum('knowledge_status', ['pending_review', 'approved', 'rejected', 'promoted']);

export const unresolvedSearchStatus = pgEnum('unresolved_search_status', ['open', 'resolved']);
export const supportRequestStatus = pgEnum('support_request_status', ['open', 'in_progress', 'closed']);
