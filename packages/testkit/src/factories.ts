import { randomBytes } from 'node:crypto';
import { type CoreContext, hashPassword, type Role } from '@cfaq/core';
import { users } from '@cfaq/db/schema/index';

export interface CreatedUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  password: string;
}

let cachedHash: { password: string; hash: string } | null = null;

/** Inserts a user. The default password's hash is computed once per file: argon2 is slow on purpose. */
export async function createUser(
  ctx: Pick<CoreContext, 'db'>,
  opts: { role?: Role; email?: string; name?: string; password?: string; status?: 'active' | 'suspended' } = {},
): Promise<CreatedUser> {
  const password = opts.password ?? 'correct-horse-battery-staple';
  let hash: string;
  if (!opts.password && cachedHash) hash = cachedHash.hash;
  else {
    hash = await hashPassword(password);
    if (!opts.password) cachedHash = { password, hash };
  }
  const email = opts.email ?? `user-${randomBytes(4).toString('hex')}@example.test`;
  const [row] = await ctx.db
    .insert(users)
    .values({ email, name: opts.name ?? 'Test User', passwordHash: hash, role: opts.role ?? 'user', status: opts.status ?? 'active' })
    .returning({ id: users.id, email: users.email, name: users.name, role: users.role });
  if (!row) throw new Error('user insert returned nothing');
  return { ...row, password };
}
