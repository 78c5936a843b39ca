import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../shared/db.js';

export interface LedgerEntry {
  userId: string;
  batchId: string;
  points: number;
  reason: string;
  sourceType?: string | null;
  sourceId?: string | null;
  /** The event's key; null for entries that need no de-duplication (an admin's manual award). */
  sourceKey?: string | null;
  awardedBy?: string | null;
}

export interface LedgerRow {
  id: string;
  userId: string;
  batchId: string;
  points: number;
  /** The user's all-time total in the program after this row. */
  total: number;
}

/**
 * The three totals rows (all, week, month) a log row created at `at` moves, as a VALUES list. Week
 * and month are UTC calendar periods of the log row's time.
 */
const periodsOf = (at: ReturnType<typeof sql>) => sql`(values
  ('all', date '1970-01-01'),
  ('week', date_trunc('week', ${at} at time zone 'UTC')::date),
  ('month', date_trunc('month', ${at} at time zone 'UTC')::date)) as p(period, period_start)`;

/**
 * Appends a log row and moves the user's totals (per program and period, and users.reputation) in
 * one statement of the caller's transaction. With a sourceKey, a second award of the same live key
 * does nothing (the partial unique index decides, so concurrent awards cannot both count) and
 * returns null.
 */
export async function appendLedger(tx: DbOrTx, e: LedgerEntry): Promise<LedgerRow | null> {
  const res = await tx.execute<{ id: string; total: number }>(sql`
    with ins as (
      insert into reputation_logs (user_id, batch_id, points, reason, source_type, source_id, source_key, awarded_by)
      values (${e.userId}, ${e.batchId}, ${e.points}, ${e.reason}, ${e.sourceType ?? null}, ${e.sourceId ?? null},
              ${e.sourceKey ?? null}, ${e.awardedBy ?? null})
      on conflict do nothing
      returning id, user_id, batch_id, points, created_at
    ), tot as (
      insert into reputation_totals (batch_id, user_id, period, period_start, points)
      select ins.batch_id, ins.user_id, p.period, p.period_start, ins.points from ins cross join lateral ${periodsOf(sql`ins.created_at`)}
      order by p.period
      on conflict (batch_id, period, period_start, user_id) do update set points = reputation_totals.points + excluded.points
      returning period, points
    ), u as (
      update users set reputation = reputation + ins.points from ins where users.id = ins.user_id
    )
    select ins.id, (select points from tot where period = 'all') as total from ins`);
  const row = res.rows[0];
  return row ? { id: row.id, userId: e.userId, batchId: e.batchId, points: e.points, total: Number(row.total) } : null;
}

/**
 * Takes back the live award of a sourceKey: marks it reversed (a single conditional UPDATE, so of
 * two concurrent reversals one wins) and appends the opposite row (reason `<reason>_reversed`),
 * moving the totals of the periods the award counted in. Returns null when nothing was live.
 */
export async function reverseLedger(tx: DbOrTx, sourceKey: string, by: string | null = null): Promise<LedgerRow | null> {
  const res = await tx.execute<{ id: string; user_id: string; batch_id: string; points: number; total: number }>(sql`
    with r as (
      update reputation_logs set reversed_at = now()
      where source_key = ${sourceKey} and reverses_id is null and reversed_at is null
      returning id, user_id, batch_id, points, reason, source_type, source_id, source_key, created_at
    ), ins as (
      insert into reputation_logs (user_id, batch_id, points, reason, source_type, source_id, source_key, reverses_id, awarded_by)
      select user_id, batch_id, -points, reason || '_reversed', source_type, source_id, source_key, id, ${by} from r
      returning id, user_id, batch_id, points
    ), tot as (
      insert into reputation_totals (batch_id, user_id, period, period_start, points)
      select r.batch_id, r.user_id, p.period, p.period_start, -r.points from r cross join lateral ${periodsOf(sql`r.created_at`)}
      where r.batch_id is not null
      order by p.period
      on conflict (batch_id, period, period_start, user_id) do update set points = reputation_totals.points + excluded.points
      returning period, points
    ), u as (
      update users set reputation = reputation - r.points from r where users.id = r.user_id
    )
    select ins.id, ins.user_id, ins.batch_id, ins.points, (select points from tot where period = 'all') as total from ins`);
  const row = res.rows[0];
  return row ? { id: row.id, userId: row.user_id, batchId: row.batch_id, points: row.points, total: Number(row.total ?? 0) } : null;
}
