import { embedRowJob, JOBS, resolveProgramId } from '@cfaq/core';
import { faqs } from '@cfaq/db/schema/index';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

describe('search.embed-row job', () => {
  it('is registered for the job and embeds the row it is given', async () => {
    expect(JOBS).toContain(embedRowJob);
    const batchId = await resolveProgramId(t.ctx, undefined);
    const [row] = await t.ctx.db.insert(faqs).values({ batchId, question: 'q', answer: 'a' }).returning({ id: faqs.id });
    const id = (row as { id: string }).id;
    const result = await embedRowJob.handler(t.ctx, { table: 'faqs', id }, { id: 'job-1', retryCount: 0 });
    expect(result).toEqual({ status: 'embedded' });
    const [after] = await t.ctx.db.select({ embedding: faqs.embedding }).from(faqs).where(eq(faqs.id, id));
    expect(after?.embedding).toHaveLength(768);
  });
});
