import { createHmac } from 'node:crypto';

/**
 * Who searched, as a key for counting distinct searchers: `u:<user id>` when signed in, else `a:` and
 * a keyed hash of the client address (HMAC with the server secret, so the log never holds an address
 * and the IPv4 space cannot be hashed through to recover one). Null when neither is known.
 */
export function searchClientKey(
  secret: string,
  who: { userId?: string | null | undefined; ip?: string | null | undefined },
): string | null {
  if (who.userId) return `u:${who.userId}`;
  if (!who.ip) return null;
  return `a:${createHmac('sha256', secret).update(`search-client\u0001${who.ip}`).digest('base64url').slice(0, 22)}`;
}
