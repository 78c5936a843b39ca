/**
 * The points table: what each event is worth to the user it credits. Reversals (an undone vote, an
 * unaccepted answer, feedback changed to not helpful, a revoked badge) write a row of the opposite
 * sign with the reason `<reason>_reversed`, so a user's total always equals the sum of their log.
 */
export const POINTS = {
  /** Your comment was accepted as the answer (by the post author or staff). */
  answer_accepted: 15,
  /** Someone upvoted your post. */
  post_upvoted: 5,
  /** Someone upvoted your comment (answer). */
  comment_upvoted: 10,
  /** Someone downvoted your post. */
  post_downvoted: -2,
  /** Someone downvoted your comment. */
  comment_downvoted: -2,
  /** Staff verified your comment as a correct answer. */
  comment_verified: 10,
  /** You answered a post that stayed unanswered for the escalation window (first_responder badge). */
  first_responder: 20,
  /** Staff converted your post into a FAQ. */
  post_converted: 25,
  /** A reader marked your FAQ (or the FAQ made from your post) helpful. */
  faq_feedback_helpful: 2,
} as const;

export type PointsReason = keyof typeof POINTS;

/** Leaderboard periods: the UTC calendar week (from Monday), the UTC calendar month, all time. */
export const PERIODS = ['week', 'month', 'all'] as const;
export type Period = (typeof PERIODS)[number];

/** Badges awarded by the system; admins may also issue any other badge name by hand. */
export const AUTOMATIC_BADGES = {
  first_responder: 'Answered a post that had gone unanswered for the escalation window (the escalation job)',
  first_answer: 'First answer accepted in the program',
  verified_answer: 'First answer verified by staff in the program',
  faq_author: 'First post converted into a FAQ in the program',
  rising_star: 'Reached 100 points in the program',
  community_pillar: 'Reached 1,000 points in the program',
} as const;

export type AutomaticBadge = keyof typeof AUTOMATIC_BADGES;

/** Point thresholds (all-time, per program) that award a badge when crossed. */
export const THRESHOLD_BADGES: readonly { points: number; badge: AutomaticBadge }[] = [
  { points: 100, badge: 'rising_star' },
  { points: 1000, badge: 'community_pillar' },
];

/** Badges that carry points of their own (taken back when the badge is revoked). */
export const BADGE_POINTS: Partial<Record<string, number>> = { first_responder: POINTS.first_responder };
