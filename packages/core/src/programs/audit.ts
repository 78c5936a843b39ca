import { type LogTarget, writeAdminLog } from '../audit/index.js';

/** The admin behind a program or FAQ write, for the admin log. */
export interface AuditBy {
  actorId: string;
  ip?: string | undefined;
}

/**
 * One admin-log row (`program.created`, `program.updated`, `program.archived`, ...) for a write on a
 * program, in the write's transaction. Without `by` (system writes, seeds) nothing is logged.
 */
export async function logProgramAction(
  target: LogTarget,
  by: AuditBy | undefined,
  action: string,
  programId: string,
  details?: Record<string, unknown>,
): Promise<void> {
  if (!by) return;
  await writeAdminLog(target, {
    actorId: by.actorId,
    action: `program.${action}`,
    targetType: 'Program',
    targetId: programId,
    batchId: programId,
    ...(by.ip ? { ip: by.ip } : {}),
    ...(details ? { details } : {}),
  });
}
