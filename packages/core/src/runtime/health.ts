import { sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';

/** How long a health probe waits for the database: a probe needs an answer in seconds. */
export const HEALTH_DATABASE_TIMEOUT_MS = 3_000;

/**
 * Whether the database answers `select 1` within `timeoutMs`. A server that stops answering (a
 * partition, a hung host) fails no query, it leaves it waiting: the probe answers "down" instead of
 * waiting with it (the query itself ends at the pool's connection timeout).
 */
export async function databaseAnswers(ctx: Pick<CoreContext, 'db'>, timeoutMs = HEALTH_DATABASE_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      ctx.db.execute(sql`select 1`).then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
