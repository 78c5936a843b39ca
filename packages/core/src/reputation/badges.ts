import { sql } from 'drizzle-orm';
import { notify } from '../notifications/index.js';
import type { DbOrTx } from '../shared/db.js';
import { appendLedger, type LedgerRow, reverseLedger } from './ledger.js';
import { BADGE_POINTS, THRESHOLD_BADGES } from './points.js';

export interface AwardBadgeInput {
  userId: string;
  batchId: string;
  name: string;
  reason?: string | null;
  /** The admin who issued it; null or absent for the system. */
  awardedBy?: string | null;
  /**
   * once (the default, for automatic awards): never again once the user held this badge in the
   * program, even if an admin revoked it. live: award unless the user holds it now (admin issue).
   */
  mode?: 'once' | 'live';
  /** Extra data for the notification (for instance the post that earned it). */
  data?: Record<string, unknown>;
  /** Write the badge notification (default true). */
  notify?: boolean;
}

export interface BadgeAward {
  /** False when the user already had it (nothing was written). */
  awarded: boolean;
  badgeId: string | null;
}

/** The notification kind a badge award writes: first_responder_awarded (the spec's name) or badge_awarded. */
export const badgeNotificationKind = (name: string) => (name === 'first_responder' ? 'first_responder_awarded' : 'badge_awarded');

/**
 * Awards a badge in the caller's transaction, idempotently and race-safely: the insert is
 * conditional and the partial unique index on live badges (user, name, program) settles concurrent
 * awards, so exactly one of them writes the row, its points (first_responder carries points) and
 * the user's notification (honouring their settings). The others return awarded = false.
 */
export async function awardBadge(tx: DbOrTx, input: AwardBadgeInput): Promise<BadgeAward> {
  const once = (input.mode ?? 'once') === 'once';
  const res = await tx.execute<{ id: string }>(sql`
    insert into badges (user_id, batch_id, name, reason, awarded_by)
    select ${input.userId}, ${input.batchId}, ${input.name}, ${input.reason ?? null}, ${input.awardedBy ?? null}
    where not ${once}::boolean or not exists (
      select 1 from badges where user_id = ${input.userId} and name = ${input.name} and batch_id = ${input.batchId})
    on conflict do nothing
    returning id`);
  const badgeId = res.rows[0]?.id ?? null;
  if (!badgeId) return { awarded: false, badgeId: null };
  const points = BADGE_POINTS[input.name];
  if (points) {
    const row = await appendLedger(tx, {
      userId: input.userId,
      batchId: input.batchId,
      points,
      reason: input.name,
      sourceType: 'badge',
      sourceId: badgeId,
      sourceKey: `badge:${badgeId}`,
      awardedBy: input.awardedBy ?? null,
    });
    // A badge's own points (first_responder's +20) can cross 100 or 1,000 like any others.
    if (row) await awardThresholdBadges(tx, row);
  }
  if (input.notify !== false) {
    await notify(tx, {
      userId: input.userId,
      batchId: input.batchId,
      kind: badgeNotificationKind(input.name),
      title: `You earned the ${input.name} badge`,
      body: input.reason ?? null,
      link: '/reputation/me',
      data: { badge: input.name, badgeId, ...(input.data ?? {}) },
    });
  }
  return { awarded: true, badgeId };
}

export interface RevokeBadgeInput {
  userId: string;
  batchId: string;
  name: string;
  reason: string;
  revokedBy: string | null;
}

/**
 * Revokes the user's live badge of that name in the program (one conditional UPDATE; the row stays
 * with revokedAt, revokedBy and revokeReason) and takes back the points it carried. Returns the
 * revoked badge's id, or null when the user did not hold it.
 */
export async function revokeBadge(tx: DbOrTx, input: RevokeBadgeInput): Promise<string | null> {
  const res = await tx.execute<{ id: string }>(sql`
    update badges set revoked_at = now(), revoked_by = ${input.revokedBy}, revoke_reason = ${input.reason}
    where user_id = ${input.userId} and batch_id = ${input.batchId} and name = ${input.name} and revoked_at is null
    returning id`);
  const id = res.rows[0]?.id ?? null;
  if (id) await reverseLedger(tx, `badge:${id}`, input.revokedBy);
  return id;
}

/** Awards the badge of each points threshold (100, 1,000) the ledger row just crossed, once. */
export async function awardThresholdBadges(tx: DbOrTx, row: LedgerRow): Promise<void> {
  if (row.points <= 0) return;
  for (const t of THRESHOLD_BADGES) {
    if (row.total >= t.points && row.total - row.points < t.points) {
      await awardBadge(tx, { userId: row.userId, batchId: row.batchId, name: t.badge, reason: `Reached ${t.points} points` });
    }
  }
}
