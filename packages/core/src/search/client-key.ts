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

/** Addresses whose keys a keyer keeps; past it the memo starts over (a bound, not an LRU: a hit stays cheap). */
const KEYER_MAX = 10_000;

/**
 * searchClientKey with the address's hash remembered (per process, at most KEYER_MAX addresses): the
 * HMAC cost 3.5 µs of CPU (22:29 UTC, load 10) on every POST /search, cache hits included, where a hit costs the API ~120-160 µs in
 * all (bench/search). The memo holds addresses only in this process's memory, as the request did.
 */
export function createSearchClientKeyer(
  secret: string,
): (who: { userId?: string | null | undefined; ip?: string | null | undefined }) => string | null {
  const byIp = new Map<string, string | null>();
  return (who) => {
    if (who.userId || !who.ip) return searchClientKey(secret, who);
    let key = byIp.get(who.ip);
    if (key === undefined) {
      key = searchClientKey(secret, who);
      if (byIp.size >= KEYER_MAX) byIp.clear();
      byIp.set(who.ip, key);
    }
    return key;
  };
}
