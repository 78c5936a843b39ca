import { batches } from '@cfaq/db/schema/index';
import { and, eq, isNull } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, notFound } from '../errors/index.js';

export interface ResolveProgramOptions {
  /** Public reads may not see archived programs; admin reads and writes may. */
  allowArchived?: boolean;
}

/**
 * The program a request is about: the given batchId (it must exist and not be deleted; archived only
 * where allowed) or, when none is given, the default program.
 */
export async function resolveProgramId(
  ctx: Pick<CoreContext, 'db'>,
  batchId: string | undefined | null,
  opts: ResolveProgramOptions = {},
): Promise<string> {
  const where = batchId
    ? and(eq(batches.id, batchId), isNull(batches.deletedAt))
    : and(eq(batches.isDefault, true), isNull(batches.deletedAt));
  const [row] = await ctx.db.select({ id: batches.id, archivedAt: batches.archivedAt }).from(batches).where(where).limit(1);
  if (!row || (row.archivedAt && !opts.allowArchived)) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
  return row.id;
}
