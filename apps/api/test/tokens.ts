import { createHmac } from 'node:crypto';
import { TEST_ENV } from '@cfaq/testkit';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A hand-made JWT: any header, any claims, signed with any HS256 secret (or unsigned). */
export function craftJwt(claims: Record<string, unknown>, opts: { alg?: string; secret?: string | null } = {}): string {
  const head = `${b64({ alg: opts.alg ?? 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  if (opts.secret === null) return `${head}.`;
  const sig = createHmac('sha256', opts.secret ?? (TEST_ENV.JWT_SECRET as string))
    .update(head)
    .digest('base64url');
  return `${head}.${sig}`;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
