import { batches } from '@cfaq/db/schema/index';
import { and, eq, isNull } from 'drizzle-orm';
import { Code, notFound } from '../errors/index.js';
import type { DbOrTx } from '../shared/db.js';
import type { ResolveProgramOptions } from './resolve.js';

/**
 * resolveProgramId for a write, inside its transaction: the program row (the given batchId, or the
 * default program) is read FOR SHARE, so it stays live until the write commits. A program delete
 * updates that row: it waits for a write that locked first (whose content then lands before the
 * delete, as any earlier content), and a write that comes after it finds no live row and is a 404
 * PROGRAM_NOT_FOUND that writes nothing. Writes do not block one another (FOR SHARE).
 */
export async function lockProgramForWrite(
  tx: DbOrTx,
  batchId: string | undefined | null,
  opts: ResolveProgramOptions = {},
): Promise<string> {
  // The default program is found first and then locked by id: locked by "is_default", a write that
  // waited on a default switch would find no row at all.
  const id =
    batchId ??
    (
      await tx
        .select({ id: batches.id })
        .from(batches)
        .where(and(eq(batches.isDefault, true), isNull(batches.deletedAt)))
    )[0]?.id;
  if (!id) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
  const [row] = await tx
    .select({ id: batches.id, archivedAt: batches.archivedAt })
    .from(batches)
    .where(and(eq(batches.id, id), isNull(batches.deletedAt)))
    .for('share');
  if (!row || (row.archivedAt && !opts.allowArchived)) throw notFound('Program', Code.PROGRAM_NOT_FOUND);
  return row.id;
}
