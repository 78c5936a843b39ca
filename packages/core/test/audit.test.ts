import { adminLogs } from '@cfaq/db/schema/index';
import { createTestContext, createUser, type TestContext } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditLogs, writeAdminLog } from '../src/index.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

describe('writeAdminLog', () => {
  it('writes through a context, and through a transaction it commits or rolls back with the write', async () => {
    const admin = await createUser(t.ctx, { role: 'admin', name: 'Ada' });
    await writeAdminLog(t.ctx, { actorId: admin.id, action: 'ai_config.updated', targetType: 'AiConfig', details: { provider: 'openai' } });
    await t.ctx.db.transaction(async (tx) => {
      await writeAdminLog(tx, { actorId: admin.id, action: 'faq.deleted', targetType: 'FAQ', targetId: 'f1' });
    });
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await writeAdminLog(tx, { actorId: admin.id, action: 'faq.deleted', targetType: 'FAQ', targetId: 'rolled-back' });
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');

    const rows = await t.ctx.db.select().from(adminLogs).where(eq(adminLogs.actorId, admin.id));
    expect(rows.map((r) => r.targetId).sort()).toEqual(['f1', null].sort());
    const page = await listAuditLogs(t.ctx, { kind: 'admin', actorId: admin.id });
    expect(page.total).toBe(2);
    expect(page.items[0]).toMatchObject({ kind: 'admin', actorName: 'Ada' });
    expect(page.items.map((i) => i.action).sort()).toEqual(['ai_config.updated', 'faq.deleted']);
  });
});
