import { isIP, isIPv4 } from 'node:net';

/**
 * Checks of setting values TypeBox cannot express. Each returns why a value is wrong, or null when it
 * is fine; load.ts turns the reason into a ConfigError naming the setting.
 */

/** A decimal number as a number setting takes it: digits with an optional fraction (no hex, exponent or Infinity). */
export const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/**
 * A host name (`localhost`, `db`, `api.example.com`; underscores as in container names) or an IP
 * address. A dotted name of numbers only must be an IPv4 address: `999.1.1.1` is neither.
 */
export function hostProblem(host: string): string | null {
  if (isIP(host)) return null;
  if (/^\[.*\]$/.test(host)) return 'an IPv6 address is written without brackets';
  if (/^[\d.]+$/.test(host)) return 'is not a valid IPv4 address';
  const labels = host.replace(/\.$/, '').split('.');
  if (host.length > 253 || !labels.every((l) => LABEL.test(l))) return 'must be a host name or an IP address';
  if (/^\d+$/.test(labels.at(-1) ?? '')) return 'is not a valid IPv4 address';
  return null;
}

/**
 * An http(s) URL with a host. The AI clients, the meeting provider's OAuth and API calls and its
 * redirect are all fetched or redirected to over HTTP: `ftp://x`, `nope` or `api.openai.com` (no
 * scheme) fail at the first call, not at start. Nor may it hold a user name or password (fetch refuses
 * such a URL, and the URL is shown to admins and logged), a fragment or port 0; a `base` URL, which the
 * clients append paths to (`/chat/completions`), no query string either (a bare `?` or `#` included:
 * URL parsing drops it, the clients' string joining does not).
 */
export function httpUrlProblem(value: string, opts: { base?: boolean } = {}): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http:// or https:// URL, not ${url.protocol}`;
  if (!url.hostname) return 'must be an http:// or https:// URL with a host';
  if (url.port === '0') return 'must have a port from 1 to 65535';
  if (url.username || url.password) return 'must not hold a user name or password';
  if (value.includes('#')) return 'must not have a fragment';
  if (opts.base && value.includes('?')) return 'must not have a query string (the clients append paths to it)';
  return null;
}

/**
 * OLLAMA_HOST as the Ollama client takes it: with no scheme it assumes `http://` and, with no port,
 * 11434 (`:11434` alone is 127.0.0.1). The generation client (ollama-ai-provider) assumes nothing, so
 * the setting is written out in full once, here, for both.
 */
export function normalizeOllamaHost(value: string): string {
  if (value.includes('://')) return value;
  const hostPart = value.startsWith(':') ? `127.0.0.1${value}` : value;
  const authority = hostPart.split('/')[0] ?? '';
  const withPort = /:\d+$/.test(authority) ? hostPart : `${authority}:11434${hostPart.slice(authority.length)}`;
  return `http://${withPort}`;
}

/**
 * One CORS_ORIGINS entry: `*` or an origin exactly as a browser sends it in `Origin` (scheme, lower-case
 * host, port only when not the default). Anything else never matches a request and allows nothing.
 */
export function originProblem(entry: string): string | null {
  if (entry === '*') return null;
  const trimmed = entry.replace(/\/+$/, '');
  const problem = httpUrlProblem(trimmed);
  if (problem) return `${JSON.stringify(entry)} is not an origin (https://app.example.com) or *`;
  const { origin } = new URL(trimmed);
  if (origin !== trimmed) {
    return `${JSON.stringify(entry)} is not an origin: a browser sends ${JSON.stringify(origin)} (scheme, host and port only, no path)`;
  }
  return null;
}

/** proxy-addr's named ranges, which Fastify's trustProxy accepts beside addresses. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: `true`, `false`, a hop count, or a comma-separated list of proxy addresses, CIDRs
 * (`10.0.0.0/8`), address/netmask pairs (`10.0.0.0/255.0.0.0`) or proxy-addr's names (`loopback`,
 * `linklocal`, `uniquelocal`), which Fastify compiles when the app is built.
 */
export function trustProxyProblem(value: string): string | null {
  if (value === 'true' || value === 'false' || /^\d+$/.test(value)) return null;
  const entries = value.split(',').map((s) => s.trim());
  for (const entry of entries) {
    if (PROXY_RANGES.has(entry)) continue;
    const [address = '', range, extra] = entry.split('/');
    const version = isIP(address);
    const bad = `${JSON.stringify(entry)} is not an address, CIDR or one of loopback, linklocal, uniquelocal (the setting is true, false, a hop count, or a comma-separated list of those)`;
    if (!version || extra !== undefined) return bad;
    if (range === undefined) continue;
    if (/^\d+$/.test(range)) {
      const max = version === 4 ? 32 : 128;
      if (Number(range) < 1 || Number(range) > max) return `${JSON.stringify(entry)} needs a prefix length from 1 to ${max}`;
      continue;
    }
    if (version === 4 && isIPv4(range) && isNetmask(range)) continue;
    return bad;
  }
  return null;
}

function isNetmask(mask: string): boolean {
  const bits = mask
    .split('.')
    .map((n) => Number(n).toString(2).padStart(8, '0'))
    .join('');
  return /^1+0*$/.test(bits);
}

/**
 * An e-mail address: one `@`, a local part without spaces and a host name after it (`admin@localhost`,
 * the docker-compose default, included).
 */
export function emailProblem(value: string): string | null {
  const at = value.lastIndexOf('@');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (value.length > 254 || at <= 0 || /[\s@]/.test(local) || !domain || hostProblem(domain) || isIP(domain)) {
    return 'must be an e-mail address (name@example.com)';
  }
  return null;
}

/**
 * A PostgreSQL URL as node-postgres reads it: `postgres://` or `postgresql://`, a host (or `?host=`,
 * a socket directory) and a database name in the path. Never echoes the value: it holds a password.
 */
export function databaseUrlProblem(value: string): string | null {
  if (!/^postgres(ql)?:\/\//.test(value)) return 'must be a postgres:// or postgresql:// URL';
  let url: URL;
  try {
    // As pg-connection-string does: spaces and stray `%` are encoded first, an empty host before `/` allowed.
    const encoded = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(value) ? encodeURI(value).replace(/%25(\d\d)/g, '%$1') : value;
    url = new URL(encoded.replace('@/', '@___NO_HOST___/'));
  } catch {
    return 'is not a valid URL (a password with reserved characters must be percent-encoded)';
  }
  const host = url.hostname === '___no_host___' ? '' : url.hostname;
  if (!host && !url.searchParams.get('host')) return 'names no host: postgres://user:password@host:5432/database';
  if (url.pathname.replace(/^\//, '') === '') return 'names no database: postgres://user:password@host:5432/database';
  return null;
}
