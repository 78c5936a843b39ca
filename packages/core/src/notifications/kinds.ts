/**
 * The notification kinds the product writes (settings may switch each off; a kind missing from the
 * user's settings is on). Tea drops use the same kind names.
 */
export const NOTIFICATION_KINDS = {
  post_answered: 'An answer to your post was accepted or auto-approved, or your answer was accepted',
  post_deleted: 'A moderator removed your post',
  first_responder_awarded: 'You earned the first_responder badge',
  badge_awarded: 'You earned another badge',
  badge_revoked: 'An admin revoked one of your badges',
  points_awarded: 'An admin awarded or deducted reputation points',
  faq_approved: 'A FAQ was approved (tea drop)',
  post_escalated: 'A post stayed unanswered past the escalation window (to admins)',
} as const;

/** The LISTEN/NOTIFY channel that carries new notifications to every API process (the SSE stream). */
export const NOTIFICATION_CHANNEL = 'cfaq_notifications';
