import { pgErrorOf } from '@cfaq/db';
import type { Role } from '../identity/principal.js';

export { type DbOrTx, databaseUnavailable, pgErrorOf, type Tx } from '@cfaq/db';

/** The signed-in caller as domain code sees it. */
export interface Actor {
  id: string;
  role: Role;
}

export const isStaff = (actor: Actor | null | undefined): boolean => actor?.role === 'admin' || actor?.role === 'moderator';

/** Postgres unique violation (SQLSTATE 23505), also when wrapped by drizzle. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const pg = pgErrorOf(err);
  return pg?.code === '23505' && (!constraint || pg.constraint === constraint);
}
