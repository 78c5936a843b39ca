import { randomUUID } from 'node:crypto';
import { createEmbeddedTestContext } from '@cfaq/testkit';
import { sql } from 'drizzle-orm';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreContext } from '../src/context.js';
import { embedRowJob } from '../src/embeddings/index.js';
import { startBoss } from '../src/jobs/boss.js';
import { BossJobQueue } from '../src/jobs/queue.js';
import { JOBS } from '../src/jobs/registry.js';

/**
 * An API process on the embedded database (`npm run start:api`): its first write that sends a job in its
 * transaction hung every request for good when pg-boss had to read the queue on its own pool (a
 * queue-cache miss) while the transaction held PGlite's one session. The queues are created here, on a
 * database that had none, as on a fresh data folder.
 */
let ctx: CoreContext;
let close: () => Promise<void>;
let boss: PgBoss;

beforeAll(async () => {
  ({ ctx, close } = await createEmbeddedTestContext());
  boss = await startBoss(
    { connectionString: ctx.config.DATABASE_URL as string, schema: 'pgboss', max: 2, schedule: false, supervise: false },
    JOBS,
    ctx.config,
    () => {},
  );
}, 180_000);
afterAll(async () => {
  await boss?.stop({ graceful: false, close: true });
  await close?.();
});

describe('pg-boss on the embedded database', () => {
  it('a job sent inside a transaction right after start commits with it (no queue read on another connection)', async () => {
    const jobs = new BossJobQueue(boss);
    const id = randomUUID();
    const sent = ctx.db.transaction((tx) => jobs.send(embedRowJob, { table: 'faqs', id }, { tx }));
    const hung = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the send did not finish in 8 s')), 8000).unref());
    expect(await Promise.race([sent, hung])).toEqual(expect.any(String));
    const stored = await ctx.db.execute(
      sql`select count(*)::int as n from pgboss.job where name = ${embedRowJob.name} and data->>'id' = ${id}`,
    );
    expect(stored.rows[0]).toEqual({ n: 1 });
  }, 30_000);
});
