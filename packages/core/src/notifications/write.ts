import { notificationSettings, notifications, teaNotifications } from '@cfaq/db/schema/index';
import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../shared/db.js';
import { NOTIFICATION_CHANNEL } from './kinds.js';

export interface NotificationSignal {
  /** notification or tea. */
  type: 'notification' | 'tea';
  id: string;
  /** The user it is for; null for a program-wide tea drop. */
  userId: string | null;
  batchId: string | null;
}

/** Signals the new row on the channel; PostgreSQL delivers it when the transaction commits (never on rollback). */
async function signal(tx: DbOrTx, s: NotificationSignal): Promise<void> {
  await tx.execute(sql`select pg_notify(${NOTIFICATION_CHANNEL}, ${JSON.stringify(s)})`);
}

export interface NotifyInput {
  userId: string;
  kind: string;
  title: string;
  body?: string | null;
  link?: string | null;
  data?: Record<string, unknown>;
  batchId?: string | null;
}

export interface TeaDropInput {
  /** null: a drop for everyone in the program. */
  userId: string | null;
  batchId: string | null;
  kind: string;
  title: string;
  body?: string | null;
  link?: string | null;
  refType?: string | null;
  refId?: string | null;
}

async function settingsOf(tx: DbOrTx, userId: string) {
  const [s] = await tx
    .select({ inApp: notificationSettings.inApp, teaDrops: notificationSettings.teaDrops, kinds: notificationSettings.kinds })
    .from(notificationSettings)
    .where(eq(notificationSettings.userId, userId))
    .limit(1);
  return s ?? null;
}

/**
 * Writes an in-app notification in the caller's transaction, unless the user switched in-app
 * notifications or this kind off (notification_settings; a missing row or kind means on).
 * Returns the new row's id, or null when the user's settings suppressed it.
 */
export async function notify(tx: DbOrTx, input: NotifyInput): Promise<string | null> {
  const s = await settingsOf(tx, input.userId);
  if (s && (!s.inApp || s.kinds[input.kind] === false)) return null;
  const [row] = await tx
    .insert(notifications)
    .values({
      userId: input.userId,
      kind: input.kind,
      title: input.title,
      body: input.body ?? null,
      link: input.link ?? null,
      data: input.data ?? {},
      batchId: input.batchId ?? null,
    })
    .returning({ id: notifications.id });
  if (row) await signal(tx, { type: 'notification', id: row.id, userId: input.userId, batchId: input.batchId ?? null });
  return row?.id ?? null;
}

/**
 * Writes a tea drop in the caller's transaction. Personal drops (userId set) respect the user's
 * teaDrops switch and per-kind switches; program-wide drops (userId null) are always written, and
 * each reader's per-kind switches filter them when read (wideShownTo in tea.ts).
 */
export async function teaDrop(tx: DbOrTx, input: TeaDropInput): Promise<string | null> {
  if (input.userId) {
    const s = await settingsOf(tx, input.userId);
    if (s && (!s.teaDrops || s.kinds[input.kind] === false)) return null;
  }
  const [row] = await tx
    .insert(teaNotifications)
    .values({
      userId: input.userId,
      batchId: input.batchId,
      kind: input.kind,
      title: input.title,
      body: input.body ?? null,
      link: input.link ?? null,
      refType: input.refType ?? null,
      refId: input.refId ?? null,
    })
    .returning({ id: teaNotifications.id });
  if (row) await signal(tx, { type: 'tea', id: row.id, userId: input.userId, batchId: input.batchId });
  return row?.id ?? null;
}
