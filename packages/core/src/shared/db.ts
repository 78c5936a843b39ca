import type { Role } from '../identity/principal.js';

export type { DbOrTx, Tx } from '@cfaq/db';

/** The signed-in caller as domain code sees it. */
export interface Actor {
  id: string;
  role: Role;
}

export const isStaff = (actor: Actor | null | undefined): boolean => actor?.role === 'admin' || actor?.role === 'moderator';

/**
 * The PostgreSQL error inside `err`: the error itself, or the one drizzle wraps (DrizzleQueryError
 * keeps it in `cause`); undefined when there is none. `code` is its SQLSTATE.
 */
export function pgErrorOf(err: unknown): { code: string; constraint?: string } | undefined {
  const e = err as { code?: unknown; constraint?: unknown; cause?: { code?: unknown; constraint?: unknown } } | null;
  const inner = typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e : e?.cause;
  if (typeof inner?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(inner.code)) return undefined;
  return { code: inner.code, ...(typeof inner.constraint === 'string' ? { constraint: inner.constraint } : {}) };
}

/** Postgres unique violation (SQLSTATE 23505), also when wrapped by drizzle. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const pg = pgErrorOf(err);
  return pg?.code === '23505' && (!constraint || pg.constraint === constraint);
}
