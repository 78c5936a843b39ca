import { splitList } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { ConfProviderError } from './client.js';

const MAX_REDIRECTS = 5;

/** Whether a host is one of CONF_DOWNLOAD_HOSTS (`example.com`, or `*.example.com` for its subdomains). */
export function isAllowedDownloadHost(config: Config, hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return splitList(config.CONF_DOWNLOAD_HOSTS).some((raw) => {
    const pattern = raw.toLowerCase();
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
    return host === pattern;
  });
}

/**
 * The download URL if the transcript may be fetched from it (a URL, https or http outside production,
 * no credentials, a host of CONF_DOWNLOAD_HOSTS); a refusal otherwise. Checked before a token is
 * fetched, so a refused URL spends no token refresh.
 */
export function downloadUrl(config: Config, rawUrl: string): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfProviderError('download refused: not a URL', false);
  }
  checkUrl(config, url);
  return url;
}

function checkUrl(config: Config, url: URL): void {
  const okScheme = url.protocol === 'https:' || (url.protocol === 'http:' && config.NODE_ENV !== 'production');
  if (!okScheme) throw new ConfProviderError(`download refused: scheme ${url.protocol} not allowed`, false);
  if (url.username || url.password) throw new ConfProviderError('download refused: credentials in the URL', false);
  if (!isAllowedDownloadHost(config, url.hostname)) {
    throw new ConfProviderError(`download refused: host ${url.hostname} is not one of CONF_DOWNLOAD_HOSTS`, false);
  }
}

async function readCapped(res: Response, max: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? '');
  if (Number.isFinite(declared) && declared > max) throw new ConfProviderError(`transcript larger than ${max} bytes`, false);
  const chunks: Buffer[] = [];
  let total = 0;
  if (!res.body) return Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > max) throw new ConfProviderError(`transcript larger than ${max} bytes`, false);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * Downloads a transcript from a URL `downloadUrl` has checked, with `Authorization: Bearer <token>`
 * (never in the query string), only from CONF_DOWNLOAD_HOSTS. Redirects are followed by hand (at most 5): to another allowed host the request
 * goes without the header; to a host not allowed, not at all. The whole download is bounded by
 * CONF_DOWNLOAD_TIMEOUT_MS and CONF_DOWNLOAD_MAX_BYTES. An HTML body (a login page answered with 200)
 * or one that is not WebVTT is a failure. A 401 from the original origin is reported with status 401 so
 * the caller can refresh (from another origin, which got no token, it is a plain failure).
 */
export async function downloadTranscript(config: Config, checked: URL, token: string): Promise<string> {
  let url = checked;
  const origin = url.origin;
  const signal = AbortSignal.timeout(config.CONF_DOWNLOAD_TIMEOUT_MS);
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const headers: Record<string, string> = { accept: 'text/vtt, text/plain;q=0.9' };
      if (url.origin === origin) headers.authorization = `Bearer ${token}`;
      let res: Response;
      try {
        res = await fetch(url, { headers, redirect: 'manual', signal });
      } catch (err) {
        throw new ConfProviderError(`download failed: ${(err as Error).message}`, true);
      }
      if (res.status >= 300 && res.status < 400) {
        const location = res.headers.get('location');
        await res.body?.cancel();
        if (!location) throw new ConfProviderError(`download answered ${res.status} without a location`, false);
        url = new URL(location, url);
        checkUrl(config, url);
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        // A 401 asks the caller to refresh the token only where the token was sent: another origin never
        // gets it, so a refresh could not help there (it spent one).
        const status = res.status === 401 && url.origin !== origin ? undefined : res.status;
        throw new ConfProviderError(`download answered ${res.status}`, res.status >= 500 || res.status === 429, status);
      }
      const type = (res.headers.get('content-type') ?? '').toLowerCase();
      if (type.includes('html')) {
        await res.body?.cancel();
        throw new ConfProviderError('download answered an HTML page instead of a transcript', false, res.status);
      }
      const text = (await readCapped(res, config.CONF_DOWNLOAD_MAX_BYTES)).toString('utf8');
      const head = text
        .replace(/^\ufeff/, '')
        .trimStart()
        .slice(0, 64)
        .toLowerCase();
      if (head.startsWith('<!doctype') || head.startsWith('<html')) {
        throw new ConfProviderError('download answered an HTML page instead of a transcript', false, res.status);
      }
      if (!text.replace(/^\ufeff/, '').startsWith('WEBVTT')) throw new ConfProviderError('download is not a WebVTT transcript', false);
      return text;
    }
    throw new ConfProviderError('download: too many redirects', false);
  } catch (err) {
    if (err instanceof ConfProviderError) throw err;
    if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') {
      throw new ConfProviderError(`download took longer than ${config.CONF_DOWNLOAD_TIMEOUT_MS} ms`, true);
    }
    throw new ConfProviderError(`download failed: ${(err as Error).message}`, true);
  }
}
