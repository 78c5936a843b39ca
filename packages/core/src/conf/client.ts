import type { Config } from '../config/schema.js';
import { type AppError, badGateway, Code, unprocessable } from '../errors/index.js';

/** Timeout of one call to the provider's OAuth or REST API. */
export const CONF_API_TIMEOUT_MS = 15_000;

/** A failed call to the provider. `transient` failures (network, timeout, 5xx, 429) are worth a retry. */
export class ConfProviderError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly status?: number,
    readonly providerCode?: string,
  ) {
    super(message);
    this.name = 'ConfProviderError';
  }
}

/**
 * The token endpoint refused this service's own OAuth client (RFC 6749 §5.2 `invalid_client` or
 * `unauthorized_client`, or a 401 that is not `invalid_grant`): CONF_CLIENT_ID or CONF_CLIENT_SECRET
 * is wrong, or the app was deactivated at the provider. A configuration error, not the user's: the
 * user's grant may well be valid, so stored tokens are kept. Marked transient: a job retries it (and
 * succeeds once an operator fixes the settings); a meeting it failed can be re-processed.
 */
export class ConfClientRejectedError extends ConfProviderError {
  constructor(cause: ConfProviderError) {
    super(
      `the provider refused this service's OAuth client credentials (${cause.message}): check CONF_CLIENT_ID and CONF_CLIENT_SECRET`,
      true,
      cause.status,
      cause.providerCode,
    );
    this.name = 'ConfClientRejectedError';
  }
}

/** RFC 6749 §5.2: the grant (code or refresh token) is invalid, expired, revoked or spent: only this ends a connection. */
export const isGrantRefused = (err: unknown): boolean => err instanceof ConfProviderError && err.providerCode === 'invalid_grant';

const CLIENT_ERRORS = new Set(['invalid_client', 'unauthorized_client']);

/** A provider failure as the API answers it: the client credentials refused is 502 CONF_CLIENT_REJECTED, anything else 502 CONF_PROVIDER_ERROR. */
export function providerProblem(err: ConfProviderError): AppError {
  if (err instanceof ConfClientRejectedError) {
    return badGateway(Code.CONF_CLIENT_REJECTED, `The meeting provider integration is misconfigured: ${err.message}`);
  }
  return badGateway(Code.CONF_PROVIDER_ERROR, `The meeting provider failed: ${err.message}`);
}

export interface ConfTokenSet {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  scope?: string;
}

export interface ConfProviderUser {
  id: string;
  email: string | null;
}

export interface ConfRecordingFile {
  fileType: string;
  downloadUrl: string;
  status?: string;
}

export interface ConfRecordingMeeting {
  uuid: string;
  id: string | null;
  hostId: string | null;
  topic: string;
  startTime: string | null;
  durationMinutes: number | null;
  files: ConfRecordingFile[];
}

const trimSlash = (s: string) => s.replace(/\/+$/, '');

export const confAuthorizeUrl = (config: Config) => `${trimSlash(config.CONF_OAUTH_BASE_URL)}/oauth/authorize`;
export const confTokenUrl = (config: Config) => `${trimSlash(config.CONF_OAUTH_BASE_URL)}/oauth/token`;
export const confApiUrl = (config: Config, path: string) => `${trimSlash(config.CONF_API_BASE_URL)}${path}`;

/** The callback the provider redirects to: CONF_REDIRECT_URI, else this API's own callback route. */
export const confRedirectUri = (config: Config) => config.CONF_REDIRECT_URI ?? `http://localhost:${config.PORT}/api/conf/auth/callback`;

export function requireConfClient(config: Config): { clientId: string; clientSecret: string } {
  if (!config.CONF_CLIENT_ID || !config.CONF_CLIENT_SECRET) {
    throw unprocessable(Code.CONF_NOT_CONFIGURED, 'The meeting provider is not configured (CONF_CLIENT_ID and CONF_CLIENT_SECRET)');
  }
  return { clientId: config.CONF_CLIENT_ID, clientSecret: config.CONF_CLIENT_SECRET };
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(CONF_API_TIMEOUT_MS) });
  } catch (err) {
    throw new ConfProviderError(`provider unreachable: ${(err as Error).message}`, true);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const b = (body ?? {}) as { error?: string; reason?: string; message?: string; code?: number | string };
    const code = b.error ?? (b.code !== undefined ? String(b.code) : undefined);
    const transient = res.status >= 500 || res.status === 429;
    throw new ConfProviderError(
      `provider answered ${res.status}${code ? ` ${code}` : ''}${b.reason || b.message ? `: ${b.reason ?? b.message}` : ''}`,
      transient,
      res.status,
      code,
    );
  }
  if (body === null || typeof body !== 'object') throw new ConfProviderError('provider answered a body that is not JSON', true, res.status);
  return body;
}

function tokenSet(body: unknown): ConfTokenSet {
  const b = body as Record<string, unknown>;
  if (typeof b.access_token !== 'string' || typeof b.refresh_token !== 'string') {
    throw new ConfProviderError('token response lacks access_token or refresh_token', false);
  }
  const expires = typeof b.expires_in === 'number' && b.expires_in > 0 ? b.expires_in : 3600;
  return {
    accessToken: b.access_token,
    refreshToken: b.refresh_token,
    expiresInSeconds: expires,
    ...(typeof b.scope === 'string' ? { scope: b.scope } : {}),
  };
}

/** A grant at the token endpoint; a refusal of the client itself is a ConfClientRejectedError. */
async function tokenGrant(config: Config, form: Record<string, string>): Promise<ConfTokenSet> {
  const { clientId, clientSecret } = requireConfClient(config);
  let body: unknown;
  try {
    body = await call(confTokenUrl(config), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams(form).toString(),
    });
  } catch (err) {
    if (
      err instanceof ConfProviderError &&
      !err.transient &&
      !isGrantRefused(err) &&
      (CLIENT_ERRORS.has(err.providerCode ?? '') || err.status === 401)
    ) {
      throw new ConfClientRejectedError(err);
    }
    throw err;
  }
  return tokenSet(body);
}

/** OAuth authorization-code grant. */
export const exchangeCode = (config: Config, code: string, redirectUri: string) =>
  tokenGrant(config, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });

/** OAuth refresh grant; the provider rotates the refresh token, so the answer's one replaces the old. */
export const refreshGrant = (config: Config, refreshToken: string) =>
  tokenGrant(config, { grant_type: 'refresh_token', refresh_token: refreshToken });

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, accept: 'application/json' });

/** `GET /users/me`: the connected account. */
export async function fetchMe(config: Config, accessToken: string): Promise<ConfProviderUser> {
  const b = (await call(confApiUrl(config, '/users/me'), { headers: bearer(accessToken) })) as Record<string, unknown>;
  if (typeof b.id !== 'string' || !b.id) throw new ConfProviderError('users/me answered no id', false);
  return { id: b.id, email: typeof b.email === 'string' ? b.email : null };
}

function toMeeting(m: Record<string, unknown>): ConfRecordingMeeting | null {
  if (typeof m.uuid !== 'string' || !m.uuid) return null;
  const files = Array.isArray(m.recording_files) ? (m.recording_files as Record<string, unknown>[]) : [];
  return {
    uuid: m.uuid,
    id: m.id === undefined || m.id === null ? null : String(m.id),
    hostId: typeof m.host_id === 'string' ? m.host_id : null,
    topic: typeof m.topic === 'string' ? m.topic : '',
    startTime: typeof m.start_time === 'string' ? m.start_time : null,
    durationMinutes: typeof m.duration === 'number' ? m.duration : null,
    files: files
      .filter((f) => typeof f.download_url === 'string' && typeof f.file_type === 'string')
      .map((f) => ({
        fileType: f.file_type as string,
        downloadUrl: f.download_url as string,
        ...(typeof f.status === 'string' ? { status: f.status } : {}),
      })),
  };
}

/** `GET /users/me/recordings?from&to`, every page. The provider answers at most one month per call. */
export async function listRecordings(config: Config, accessToken: string, from: string, to: string): Promise<ConfRecordingMeeting[]> {
  const out: ConfRecordingMeeting[] = [];
  let pageToken = '';
  for (let page = 0; page < 100; page++) {
    const q = new URLSearchParams({ from, to, page_size: '300', ...(pageToken ? { next_page_token: pageToken } : {}) });
    const b = (await call(confApiUrl(config, `/users/me/recordings?${q}`), { headers: bearer(accessToken) })) as Record<string, unknown>;
    for (const m of Array.isArray(b.meetings) ? (b.meetings as Record<string, unknown>[]) : []) {
      const meeting = toMeeting(m);
      if (meeting) out.push(meeting);
    }
    pageToken = typeof b.next_page_token === 'string' ? b.next_page_token : '';
    if (!pageToken) break;
  }
  return out;
}

/** The transcript file of a recording (file type TRANSCRIPT), if it has one. */
export const transcriptFile = (files: readonly ConfRecordingFile[]) =>
  files.find((f) => f.fileType.toUpperCase() === 'TRANSCRIPT' && (!f.status || f.status.toLowerCase() === 'completed'));
