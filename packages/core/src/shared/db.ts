import type { Role } from '../identity/principal.js';

export type { DbOrTx, Tx } from '@cfaq/db';

/** The signed-in caller as domain code sees it. */
export interface Actor {
  id: string;
  role: Role;
}

export const isStaff = (actor: Actor | null | undefined): boolean => actor?.role === 'admin' || actor?.role === 'moderator';

/** Postgres unique violation (SQLSTATE 23505), also when wrapped by drizzle. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const inner = e?.code === '23505' ? e : e?.cause?.code === '23505' ? e.cause : null;
  return !!inner && (!constraint || inner.constraint === constraint);
}
