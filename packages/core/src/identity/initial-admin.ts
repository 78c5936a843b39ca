import { users } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
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
 * ADMIN_PASSWORD a random one is generated and handed back once. An existing account is left as it
 * is (its password is not reset by a restart).
 */
export async function ensureInitialAdmin(ctx: Pick<CoreContext, 'db' | 'config' | 'log'>): Promise<InitialAdminResult> {
  const email = normalizeEmail(ctx.config.ADMIN_EMAIL ?? 'admin@localhost');
  const [existing] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (existing) return { created: false, email };
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
