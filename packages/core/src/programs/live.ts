import { batches } from '@cfaq/db/schema/index';
import { type AnyColumn, type SQL, sql } from 'drizzle-orm';

export interface LiveProgramOptions {
  /** The column may be null: such a row belongs to the default program, which is never deleted. */
  nullable?: boolean;
}

/**
 * SQL: the program `column` names is not deleted. A deleted program's rows stay (soft delete) but
 * leave every list, count, job and write that is not about that program by id.
 */
export function inLiveProgram(column: AnyColumn | SQL, opts: LiveProgramOptions = {}): SQL {
  const live = sql`exists (select 1 from ${batches} b where b.id = ${column} and b.deleted_at is null)`;
  return opts.nullable ? sql`(${column} is null or ${live})` : live;
}
