import { users } from '@cfaq/db/schema/index';
import { createTestContext, type TestContext } from '@cfaq/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/load.js';
import { ensureInitialAdmin } from '../src/identity/initial-admin.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

describe('the initial admin', () => {
  it('in production, is never created with a generated password (it would be printed to the logs)', async () => {
    await t.ctx.db.delete(users).where(eq(users.role, 'admin'));
    const prod = {
      ...t.ctx,
      config: { ...t.ctx.config, NODE_ENV: 'production' as const, ADMIN_EMAIL: 'first@example.com', ADMIN_PASSWORD: undefined },
    };
    await expect(ensureInitialAdmin(prod)).rejects.toBeInstanceOf(ConfigError);
    expect(await t.ctx.db.select().from(users).where(eq(users.email, 'first@example.com'))).toEqual([]);
    // With a password it is created; afterwards, with none, a start finds the admin and goes on.
    expect(await ensureInitialAdmin({ ...prod, config: { ...prod.config, ADMIN_PASSWORD: 'a-long-admin-password' } })).toMatchObject({
      created: true,
    });
    expect(await ensureInitialAdmin({ ...prod, config: { ...prod.config, ADMIN_EMAIL: 'other@example.com' } })).toMatchObject({
      created: false,
    });
  });

  it('outside production, generates the password for the first admin and hands it back once', async () => {
    await t.ctx.db.delete(users).where(eq(users.role, 'admin'));
    const dev = {
      ...t.ctx,
      config: { ...t.ctx.config, NODE_ENV: 'development' as const, ADMIN_EMAIL: 'dev@example.com', ADMIN_PASSWORD: undefined },
    };
    const made = await ensureInitialAdmin(dev);
    expect(made).toMatchObject({ created: true, generatedPassword: expect.any(String) });
    expect(await ensureInitialAdmin(dev)).toEqual({ created: false, email: 'dev@example.com' });
    // A process started without ADMIN_EMAIL (a worker joining) finds an admin: no admin@localhost beside it.
    expect(await ensureInitialAdmin({ ...dev, config: { ...dev.config, ADMIN_EMAIL: undefined } })).toMatchObject({ created: false });
    expect(await t.ctx.db.select().from(users).where(eq(users.email, 'admin@localhost'))).toEqual([]);
    // With a password named, ADMIN_EMAIL still adds that admin beside the others.
    const named = { ...dev, config: { ...dev.config, ADMIN_EMAIL: 'second@example.com', ADMIN_PASSWORD: 'a-long-admin-password' } };
    expect(await ensureInitialAdmin(named)).toMatchObject({ created: true });
  });
});
