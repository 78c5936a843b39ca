import type { DbOrTx } from '@cfaq/db';
import { adminLogs, moderationLogs, users } from '@cfaq/db/schema/index';
import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { CoreContext } from '../context.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { isUuid } from '../shared/uuid.js';
import type { AuditLogItem } from './shape.js';

/** A context (`{ db }`), the database itself, or an open transaction (so the log commits with the write). */
export type LogTarget = Pick<CoreContext, 'db'> | DbOrTx;
const executor = (target: LogTarget): DbOrTx => ('insert' in target ? target : target.db);

export interface AdminLogEntry {
  /** The admin who acted; null for the system. */
  actorId: string | null;
  /** Dotted verb, e.g. `user.role_changed`, `user.deleted`, `ai_config.updated`. */
  action: string;
  targetType?: string;
  targetId?: string;
  reason?: string | null;
  details?: Record<string, unknown>;
  ip?: string;
  batchId?: string;
}

/** Who wrote an admin-log entry: the admin and, when the request had one, their address. */
export const adminLogBy = (actor: { id: string; ip?: string | undefined }): Pick<AdminLogEntry, 'actorId' | 'ip'> => ({
  actorId: actor.id,
  ...(actor.ip ? { ip: actor.ip } : {}),
});

/** Records an admin write (role change, delete, config change, ...). Pass the write's transaction. */
export async function writeAdminLog(target: LogTarget, entry: AdminLogEntry): Promise<string> {
  const [row] = await executor(target)
    .insert(adminLogs)
    .values({
      actorId: entry.actorId,
      action: entry.action,
      targetType: entry.targetType ?? null,
      targetId: entry.targetId ?? null,
      reason: entry.reason ?? null,
      details: entry.details ?? {},
      ip: entry.ip ?? null,
      batchId: entry.batchId ?? null,
    })
    .returning({ id: adminLogs.id });
  return (row as { id: string }).id;
}

export interface ModerationLogEntry {
  actorId: string | null;
  /** The user acted on (the author of the content, null when that account is gone). */
  targetUserId: string | null;
  /** `suspend`, `unsuspend`, or staff acting on someone else's post (PostModeration, community/moderation-log.ts). */
  action: string;
  reason?: string | null;
  until?: Date | null;
  details?: Record<string, unknown>;
}

/** Records a moderation action against a user. Pass the write's transaction. */
export async function writeModerationLog(target: LogTarget, entry: ModerationLogEntry): Promise<string> {
  const [row] = await executor(target)
    .insert(moderationLogs)
    .values({
      actorId: entry.actorId,
      targetUserId: entry.targetUserId,
      action: entry.action,
      reason: entry.reason ?? null,
      until: entry.until ?? null,
      details: entry.details ?? {},
    })
    .returning({ id: moderationLogs.id });
  return (row as { id: string }).id;
}

export interface AuditLogQuery extends PageQuery {
  /** moderation (default): suspensions; admin: every other admin write. */
  kind?: 'moderation' | 'admin';
  action?: string;
  actorId?: string;
  targetId?: string;
}

const actor = alias(users, 'actor');
const target = alias(users, 'target');

/**
 * What an admin log entry's target is called now, by its kind: a user's or program's name, a FAQ's
 * question, a post's title; null once it is gone (a deleted user, FAQ or post), or for kinds without a
 * name. A program is soft-deleted and keeps its name, so the entry of its deletion still says which
 * program went. Read by primary key: the id is text in the log, cast only where it is a uuid.
 */
const ADMIN_TARGET_NAME = sql<string | null>`(
  WITH t(id) AS (SELECT CASE WHEN ${adminLogs.targetId} ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN ${adminLogs.targetId}::uuid END)
  SELECT CASE ${adminLogs.targetType}
    WHEN 'User' THEN (SELECT u.name FROM users u, t WHERE u.id = t.id)
    WHEN 'Program' THEN (SELECT b.name FROM batches b, t WHERE b.id = t.id)
    WHEN 'FAQ' THEN (SELECT f.question FROM faqs f, t WHERE f.id = t.id)
    WHEN 'CommunityPost' THEN (SELECT p.title FROM community_posts p, t WHERE p.id = t.id AND p.deleted_at IS NULL)
  END
)`;

/** Newest first, paginated; names of actor and target user joined in (null once deleted). */
export async function listAuditLogs(ctx: Pick<CoreContext, 'db'>, q: AuditLogQuery): Promise<Page<AuditLogItem>> {
  const w = pageWindow(q);
  if (q.kind === 'admin') {
    const conds: SQL[] = [];
    if (q.action) conds.push(eq(adminLogs.action, q.action));
    if (q.actorId) conds.push(eq(adminLogs.actorId, q.actorId));
    if (q.targetId) conds.push(eq(adminLogs.targetId, q.targetId));
    const where = conds.length ? and(...conds) : undefined;
    const [rows, [total]] = await Promise.all([
      ctx.db
        .select({ log: adminLogs, actorName: actor.name, targetName: ADMIN_TARGET_NAME })
        .from(adminLogs)
        .leftJoin(actor, eq(actor.id, adminLogs.actorId))
        .where(where)
        .orderBy(desc(adminLogs.createdAt), desc(adminLogs.id))
        .limit(w.limit)
        .offset(w.offset),
      ctx.db.select({ n: count() }).from(adminLogs).where(where),
    ]);
    const items = rows.map(({ log, actorName, targetName }) => ({
      id: log.id,
      kind: 'admin' as const,
      action: log.action,
      actorId: log.actorId,
      actorName,
      targetType: log.targetType,
      targetId: log.targetId,
      targetName,
      reason: log.reason,
      until: null,
      details: log.details,
      createdAt: log.createdAt,
    }));
    return toPage(items, total?.n ?? 0, w);
  }
  // Moderation targets are user ids: anything else matches nothing (and must not reach a uuid cast).
  if (q.targetId && !isUuid(q.targetId)) return toPage([], 0, w);
  const conds: SQL[] = [];
  if (q.action) conds.push(eq(moderationLogs.action, q.action));
  if (q.actorId) conds.push(eq(moderationLogs.actorId, q.actorId));
  if (q.targetId) conds.push(eq(moderationLogs.targetUserId, q.targetId));
  const where = conds.length ? and(...conds) : undefined;
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ log: moderationLogs, actorName: actor.name, targetName: target.name })
      .from(moderationLogs)
      .leftJoin(actor, eq(actor.id, moderationLogs.actorId))
      .leftJoin(target, eq(target.id, moderationLogs.targetUserId))
      .where(where)
      .orderBy(desc(moderationLogs.createdAt), desc(moderationLogs.id))
      .limit(w.limit)
      .offset(w.offset),
    ctx.db.select({ n: count() }).from(moderationLogs).where(where),
  ]);
  const items = rows.map(({ log, actorName, targetName }) => ({
    id: log.id,
    kind: 'moderation' as const,
    action: log.action,
    actorId: log.actorId,
    actorName,
    targetType: 'User',
    targetId: log.targetUserId,
    targetName,
    reason: log.reason,
    until: log.until,
    details: log.details,
    createdAt: log.createdAt,
  }));
  return toPage(items, total?.n ?? 0, w);
}

export * from './shape.js';
