import { batches, faqReviewStatus, faqs } from '@cfaq/db/schema/index';
import { and, inArray, type SQL, sql } from 'drizzle-orm';
import { type Actor, isStaff } from '../shared/db.js';

/**
 * The public-FAQ rule, defined once: statuses anyone may read (draft is staff-only). Used by the FAQ
 * routes (faqVisibleTo, through drizzle) and by hybrid search (PUBLIC_FAQ_SQL, in its raw statement).
 */
export const PUBLIC_REVIEW_STATUSES = ['approved', 'verified', 'pending_review', 'update_requested'] as const;

/** The statuses only staff may read (draft), the complement of the public ones. */
export const HIDDEN_REVIEW_STATUSES = faqReviewStatus.enumValues.filter((s) => !(PUBLIC_REVIEW_STATUSES as readonly string[]).includes(s));

/**
 * The same rule as SQL over the faqs table's own columns (no alias), for raw statements. Written as
 * the exclusion of the hidden statuses: an IN list of the public ones would let the planner read a
 * program's rows through the status index instead of searching the HNSW graph.
 */
export const PUBLIC_FAQ_SQL = `review_status NOT IN (${HIDDEN_REVIEW_STATUSES.map((s) => `'${s}'`).join(', ')})`;

/** Who may see a FAQ: staff see every status in any live program; others see public statuses in live, unarchived programs. */
export function faqVisibleTo(actor: Actor | null): SQL {
  const program = isStaff(actor)
    ? sql`exists (select 1 from ${batches} b where b.id = faqs.batch_id and b.deleted_at is null)`
    : sql`exists (select 1 from ${batches} b where b.id = faqs.batch_id and b.deleted_at is null and b.archived_at is null)`;
  return isStaff(actor) ? program : (and(program, inArray(faqs.reviewStatus, [...PUBLIC_REVIEW_STATUSES])) as SQL);
}
