import { users } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import type { Role } from './shape.js';

export type { Role } from './shape.js';

export interface Principal {
  id: string;
  email: string;
  role: Role;
  suspended: boolean;
  /** Two-factor (TOTP) enabled: ADMIN_2FA_REQUIRED admits admins to admin routes only then. */
  totpEnabled: boolean;
}

/** ADMIN_2FA_REQUIRED, whose unset value follows NODE_ENV (on in production). */
export const adminTwoFactorRequired = (config: { ADMIN_2FA_REQUIRED?: boolean | undefined; NODE_ENV: string }) =>
  config.ADMIN_2FA_REQUIRED ?? config.NODE_ENV === 'production';

/**
 * The caller as the database says now: role changes and suspensions take effect on the very next
 * request, not when the token expires. A suspension whose `until` has passed no longer counts.
 */
export async function loadPrincipal(ctx: Pick<CoreContext, 'db' | 'clock'>, userId: string): Promise<Principal | null> {
  const [row] = await ctx.db
    .select({
      id: users.id,
      email: users.email,
      role: users.role,
      status: users.status,
      suspendedUntil: users.suspendedUntil,
      totpEnabled: users.totpEnabled,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!row) return null;
  const suspended = row.status === 'suspended' && (row.suspendedUntil === null || row.suspendedUntil > ctx.clock.now());
  return { id: row.id, email: row.email, role: row.role, suspended, totpEnabled: row.totpEnabled };
}
