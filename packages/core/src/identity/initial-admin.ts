import { users } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import { ConfigError } from '../config/load.js';
import type { CoreContext } from '../context.js';
import { randomToken } from '../crypto/tokens.js';
import { hashPassword, normalizeEmail } from './password.js';

export interface InitialAdminResult {
  created: boolean;
  email: string;
  /** Set only when the password was generated: the caller prints it once, never to the log. */
  generatedPassword?: string;
}

/**
 * Creates the admin from ADMIN_EMAIL / ADMIN_PASSWORD when no account has that email. With no
 * ADMIN_PASSWORD it creates only the first admin (none exists yet), with a random password handed
 * back once, outside production; production refuses to start without it unless an admin exists. An existing account is left as it is (its
 * password is not reset by a restart).
 */
export async function ensureInitialAdmin(ctx: Pick<CoreContext, 'db' | 'config' | 'log'>): Promise<InitialAdminResult> {
  const email = normalizeEmail(ctx.config.ADMIN_EMAIL ?? 'admin@localhost');
  const [existing] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (existing) return { created: false, email };
  if (!ctx.config.ADMIN_PASSWORD) {
    // A generated password is for the first admin only: with an admin already there (a worker started
    // without ADMIN_EMAIL beside an API that has one), another account would be a surprise.
    const [anyAdmin] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).limit(1);
    if (anyAdmin) return { created: false, email };
    // A generated password would be printed to the process's output, which a deployment ships to its
    // logs. Production names its first admin's password.
    if (ctx.config.NODE_ENV === 'production') {
      throw new ConfigError('ADMIN_PASSWORD', 'is required in production to create the first admin (with ADMIN_EMAIL)');
    }
  }
  const generated = ctx.config.ADMIN_PASSWORD ? undefined : randomToken(18);
  const password = ctx.config.ADMIN_PASSWORD ?? (generated as string);
  const inserted = await ctx.db
    .insert(users)
    .values({ email, name: 'Administrator', passwordHash: await hashPassword(password, ctx.config), role: 'admin' })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (inserted.length === 0) return { created: false, email };
  ctx.log.info({ email }, 'initial admin created');
  return { created: true, email, ...(generated ? { generatedPassword: generated } : {}) };
}
