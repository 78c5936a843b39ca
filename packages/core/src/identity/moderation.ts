import { users } from '@cfaq/db/schema/index';
import { and, eq } from 'drizzle-orm';
import { writeModerationLog } from '../audit/index.js';
import type { CoreContext } from '../context.js';
import { Code, invalidField, notFound, unprocessable } from '../errors/index.js';
import { dateTimeInput } from '../shared/time-bounds.js';
import type { UserJson } from './shape.js';
import {
  type AdminActor,
  assertAnotherActiveAdmin,
  lockAdminSet,
  revokeUserTokens,
  suspensionInForce,
  toUserJson,
  type UserRow,
  userColumns,
} from './users.js';

/**
 * Suspends a user, at once: the auth check reads the user row on every request, so the next request
 * with any token is refused (403), login is refused, and every refresh token is revoked. Without
 * `until` the suspension lasts until lifted; suspending a suspended user replaces reason and until.
 */
export async function suspendUser(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>,
  actor: AdminActor,
  params: { userId: string; reason: string; until?: string | Date | undefined },
): Promise<UserJson> {
  const now = ctx.clock.now();
  if (params.userId === actor.id) throw unprocessable(Code.CANNOT_SUSPEND_SELF, 'You cannot suspend yourself');
  const until = typeof params.until === 'string' ? dateTimeInput('body.until', params.until) : params.until;
  if (until && until <= now) throw invalidField('body.until', 'must be in the future');
  const row = await ctx.db.transaction(async (tx) => {
    await lockAdminSet(tx);
    const [current] = await tx.select({ role: users.role }).from(users).where(eq(users.id, params.userId)).for('update');
    if (!current) throw notFound('User', Code.USER_NOT_FOUND);
    if (current.role === 'admin') await assertAnotherActiveAdmin(tx, params.userId, now);
    const [updated] = await tx
      .update(users)
      .set({
        status: 'suspended',
        suspendedAt: now,
        suspendedUntil: until ?? null,
        suspendedReason: params.reason,
        updatedAt: now,
      })
      .where(eq(users.id, params.userId))
      .returning(userColumns);
    await revokeUserTokens(tx, params.userId, now);
    await writeModerationLog(tx, {
      actorId: actor.id,
      targetUserId: params.userId,
      action: 'suspend',
      reason: params.reason,
      until: until ?? null,
    });
    return updated as UserRow;
  });
  return toUserJson(row, now, ctx.secrets);
}

/** Lifts a suspension (one conditional UPDATE on a suspension still in force); 422 when not suspended, or its end has passed. */
export async function unsuspendUser(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'secrets'>,
  actor: AdminActor,
  params: { userId: string; reason?: string },
): Promise<UserJson> {
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(users)
      .set({ status: 'active', suspendedAt: null, suspendedUntil: null, suspendedReason: null, updatedAt: now })
      // A suspension whose `until` has passed no longer counts anywhere (isSuspended): not here either.
      .where(and(eq(users.id, params.userId), suspensionInForce(now)))
      .returning(userColumns);
    if (!updated) {
      const [exists] = await tx.select({ id: users.id }).from(users).where(eq(users.id, params.userId)).limit(1);
      if (!exists) throw notFound('User', Code.USER_NOT_FOUND);
      throw unprocessable(Code.NOT_SUSPENDED, 'This user is not suspended');
    }
    await writeModerationLog(tx, { actorId: actor.id, targetUserId: params.userId, action: 'unsuspend', reason: params.reason ?? null });
    return updated;
  });
  return toUserJson(row, now, ctx.secrets);
}
