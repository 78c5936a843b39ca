import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeConfUser {
  id: string;
  email: string;
}

export interface FakeConfRecording {
  uuid: string;
  id: number;
  hostId: string;
  topic: string;
  startTime: string;
  duration: number;
  /** The VTT served for this recording's transcript file (omit: the recording has no transcript). */
  vtt?: string;
}

export type DownloadBehaviour =
  | { kind: 'ok' }
  | { kind: 'html' }
  | { kind: 'status'; status: number }
  | { kind: 'redirect-same-origin' }
  | { kind: 'redirect-cross-origin'; to: string }
  | { kind: 'slow'; ms: number }
  /** Headers and the first bytes, then nothing until the client goes away (a worker killed mid-download). */
  | { kind: 'hang' }
  | { kind: 'huge'; bytes: number };

export interface FakeConfProvider {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Settings pointing the service at this fake. */
  env: Record<string, string>;
  users: Map<string, FakeConfUser>;
  recordings: FakeConfRecording[];
  /** Every request: method, path (without query), authorization header. */
  requests: { method: string; path: string; authorization: string | undefined; query: URLSearchParams }[];
  /** Resolves with the next request (after this call) whose path starts with `pathPrefix`. */
  nextRequest(pathPrefix: string): Promise<FakeConfProvider['requests'][number]>;
  /** Token grants made: how many of each kind. */
  grants: { authorization_code: number; refresh_token: number };
  /** Issues an authorization code for a provider user, as the consent screen would. */
  issueCode(userId: string, redirectUri: string): string;
  /** The provider-side access tokens stop working (as if they expired). */
  expireAccessTokens(): void;
  /** Lifetime given to new access tokens. */
  setAccessTokenTtl(seconds: number): void;
  /** Delays token-endpoint answers (to make concurrent refreshes overlap). */
  setTokenDelay(ms: number): void;
  setDownloadBehaviour(b: DownloadBehaviour): void;
  addRecording(r: Omit<FakeConfRecording, 'id' | 'startTime' | 'duration'> & Partial<FakeConfRecording>): FakeConfRecording;
  /** The download URL of a recording's transcript file. */
  transcriptUrl(uuid: string): string;
  /** A provider event body for a recording, as the webhook sends it. */
  recordingEvent(uuid: string, event?: string): Record<string, unknown>;
  close(): Promise<void>;
}

/** Signs a webhook body as the provider does: `x-zm-signature: v0=<hex HMAC(secret, "v0:ts:body")>`. */
export function signConfWebhook(secret: string, body: string, timestampSeconds = Math.floor(Date.now() / 1000)) {
  const ts = String(timestampSeconds);
  return {
    'content-type': 'application/json',
    'x-zm-request-timestamp': ts,
    'x-zm-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`,
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const token = () => randomBytes(24).toString('base64url');

/**
 * A local meeting provider speaking the Zoom-compatible protocol the service uses:
 * - `GET /oauth/authorize` (redirects to redirect_uri with code and state),
 *   `POST /oauth/token` (Basic client auth; grants authorization_code and refresh_token; refresh tokens
 *   rotate and a used one answers 400 invalid_grant);
 * - `GET /v2/users/me`, `GET /v2/users/me/recordings?from&to&page_size&next_page_token` (Bearer; an
 *   unknown or expired token answers 401 with code 124);
 * - `GET /rec/download/<uuid>/transcript.vtt` (Bearer access token in the header only; a token in the
 *   query string is refused), with switchable misbehaviour (HTML, redirects, slow, huge).
 */
export async function startFakeConfProvider(opts: { clientId?: string; clientSecret?: string } = {}): Promise<FakeConfProvider> {
  const clientId = opts.clientId ?? 'fake-client-id';
  const clientSecret = opts.clientSecret ?? 'fake-client-secret';
  const users = new Map<string, FakeConfUser>();
  const recordings: FakeConfRecording[] = [];
  const codes = new Map<string, { userId: string; redirectUri: string; used: boolean }>();
  const access = new Map<string, { userId: string; expiresAt: number }>();
  const refresh = new Map<string, { userId: string; used: boolean }>();
  const requests: FakeConfProvider['requests'] = [];
  const grants = { authorization_code: 0, refresh_token: 0 };
  let ttl = 3600;
  let tokenDelay = 0;
  let download: DownloadBehaviour = { kind: 'ok' };
  let base = '';

  const issueTokens = (userId: string) => {
    const a = token();
    const r = token();
    access.set(a, { userId, expiresAt: Date.now() + ttl * 1000 });
    refresh.set(r, { userId, used: false });
    return { access_token: a, token_type: 'bearer', refresh_token: r, expires_in: ttl, scope: 'recording:read user:read' };
  };

  const bearerUser = (req: IncomingMessage): string | null => {
    const h = req.headers.authorization;
    if (!h?.startsWith('Bearer ')) return null;
    const t = access.get(h.slice(7));
    return t && t.expiresAt > Date.now() ? t.userId : null;
  };

  const waiting: { prefix: string; resolve: (r: FakeConfProvider['requests'][number]) => void }[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const seen = { method: req.method ?? 'GET', path: url.pathname, authorization: req.headers.authorization, query: url.searchParams };
    requests.push(seen);
    for (const w of waiting.filter((x) => seen.path.startsWith(x.prefix))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(seen);
    }
    const body = await readBody(req);

    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const userId = url.searchParams.get('login_as') ?? [...users.keys()][0];
      if (url.searchParams.get('client_id') !== clientId || !userId) return json(res, 400, { error: 'invalid_request' });
      const code = issueCode(userId, redirectUri);
      const to = new URL(redirectUri);
      to.searchParams.set('code', code);
      to.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: to.toString() });
      return res.end();
    }

    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      if (tokenDelay) await new Promise((r) => setTimeout(r, tokenDelay));
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected)
        return json(res, 401, { reason: 'Invalid client_id or client_secret', error: 'invalid_client' });
      const form = new URLSearchParams(body);
      if (form.get('grant_type') === 'authorization_code') {
        const c = codes.get(form.get('code') ?? '');
        if (!c || c.used || c.redirectUri !== form.get('redirect_uri'))
          return json(res, 400, { reason: 'Invalid authorization code', error: 'invalid_grant' });
        c.used = true;
        grants.authorization_code++;
        return json(res, 200, issueTokens(c.userId));
      }
      if (form.get('grant_type') === 'refresh_token') {
        const r = refresh.get(form.get('refresh_token') ?? '');
        if (!r || r.used) return json(res, 400, { reason: 'Invalid Token!', error: 'invalid_grant' });
        r.used = true; // rotation: the old refresh token is spent
        grants.refresh_token++;
        return json(res, 200, issueTokens(r.userId));
      }
      return json(res, 400, { reason: 'Unsupported grant type', error: 'unsupported_grant_type' });
    }

    if (req.method === 'GET' && url.pathname === '/v2/users/me') {
      const userId = bearerUser(req);
      if (!userId) return json(res, 401, { code: 124, message: 'Invalid access token.' });
      const u = users.get(userId);
      return json(res, 200, { id: u?.id, email: u?.email, first_name: 'Fake', last_name: 'User', type: 2 });
    }

    if (req.method === 'GET' && url.pathname === '/v2/users/me/recordings') {
      const userId = bearerUser(req);
      if (!userId) return json(res, 401, { code: 124, message: 'Invalid access token.' });
      const from = url.searchParams.get('from') ?? '0000-00-00';
      const to = url.searchParams.get('to') ?? '9999-99-99';
      const size = Math.min(300, Number(url.searchParams.get('page_size') ?? 30));
      const offset = Number(url.searchParams.get('next_page_token') || 0);
      const all = recordings.filter((r) => r.hostId === userId && r.startTime.slice(0, 10) >= from && r.startTime.slice(0, 10) <= to);
      const page = all.slice(offset, offset + size);
      return json(res, 200, {
        from,
        to,
        page_size: size,
        total_records: all.length,
        next_page_token: offset + size < all.length ? String(offset + size) : '',
        meetings: page.map((r) => meetingObject(r)),
      });
    }

    const dl = /^\/rec\/download\/([^/]+)\/transcript\.vtt$/.exec(url.pathname);
    if (req.method === 'GET' && dl) {
      if (url.searchParams.has('access_token')) return json(res, 400, { message: 'token in the query string refused' });
      const rec = recordings.find((r) => r.uuid === decodeURIComponent(dl[1] as string));
      const hop = url.searchParams.get('hop');
      if (download.kind === 'redirect-cross-origin' && !hop) {
        res.writeHead(302, { location: `${download.to}/rec/download/${dl[1]}/transcript.vtt?hop=1` });
        return res.end();
      }
      if (!bearerUser(req)) return json(res, 401, { code: 124, message: 'Invalid access token.' });
      if (!rec?.vtt) return json(res, 404, { code: 3301, message: 'This recording does not exist.' });
      if (download.kind === 'redirect-same-origin' && !hop) {
        res.writeHead(302, { location: `/rec/download/${dl[1]}/transcript.vtt?hop=1` });
        return res.end();
      }
      if (download.kind === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<!doctype html><html><body>Sign in</body></html>');
      }
      if (download.kind === 'status') return json(res, download.status, { message: 'failure' });
      res.writeHead(200, { 'content-type': 'text/vtt' });
      if (download.kind === 'slow') {
        res.write(rec.vtt.slice(0, 10));
        await new Promise((r) => setTimeout(r, download.kind === 'slow' ? download.ms : 0));
        return res.end(rec.vtt.slice(10));
      }
      if (download.kind === 'hang') {
        res.write(rec.vtt.slice(0, 10));
        if (!res.destroyed) await once(res, 'close');
        return;
      }
      if (download.kind === 'huge') {
        res.write(rec.vtt);
        const chunk = Buffer.alloc(64 * 1024, 'a');
        for (let sent = 0; sent < download.bytes; sent += chunk.length) {
          if (!res.write(chunk)) await once(res, 'drain');
        }
        return res.end();
      }
      return res.end(rec.vtt);
    }
    return json(res, 404, { code: 404, message: 'Not found' });
  });

  function issueCode(userId: string, redirectUri: string): string {
    const code = token();
    codes.set(code, { userId, redirectUri, used: false });
    return code;
  }

  const transcriptUrl = (uuid: string) => `${base}/rec/download/${encodeURIComponent(uuid)}/transcript.vtt`;
  function meetingObject(r: FakeConfRecording) {
    const host = users.get(r.hostId);
    return {
      uuid: r.uuid,
      id: r.id,
      account_id: 'acc-1',
      host_id: r.hostId,
      host_email: host?.email,
      topic: r.topic,
      type: 2,
      start_time: r.startTime,
      timezone: 'UTC',
      duration: r.duration,
      total_size: 1000,
      recording_count: r.vtt ? 2 : 1,
      recording_files: [
        {
          id: `${r.uuid}-mp4`,
          file_type: 'MP4',
          recording_type: 'shared_screen_with_speaker_view',
          status: 'completed',
          download_url: `${base}/rec/download/${encodeURIComponent(r.uuid)}/video.mp4`,
        },
        ...(r.vtt
          ? [
              {
                id: `${r.uuid}-vtt`,
                file_type: 'TRANSCRIPT',
                file_extension: 'VTT',
                recording_type: 'audio_transcript',
                status: 'completed',
                download_url: transcriptUrl(r.uuid),
              },
            ]
          : []),
      ],
    };
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  let nextId = 85_000_000_000;
  return {
    url: base,
    clientId,
    clientSecret,
    env: {
      CONF_CLIENT_ID: clientId,
      CONF_CLIENT_SECRET: clientSecret,
      CONF_OAUTH_BASE_URL: base,
      CONF_API_BASE_URL: `${base}/v2`,
      CONF_DOWNLOAD_HOSTS: '127.0.0.1',
      CONF_REDIRECT_URI: 'http://localhost:5173/conf/callback',
    },
    users,
    recordings,
    requests,
    nextRequest: (prefix) => new Promise((resolve) => waiting.push({ prefix, resolve })),
    grants,
    issueCode,
    expireAccessTokens() {
      for (const t of access.values()) t.expiresAt = 0;
    },
    setAccessTokenTtl(seconds) {
      ttl = seconds;
    },
    setTokenDelay(ms) {
      tokenDelay = ms;
    },
    setDownloadBehaviour(b) {
      download = b;
    },
    addRecording(r) {
      const rec: FakeConfRecording = {
        id: nextId++,
        startTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        duration: 60,
        ...r,
      };
      recordings.push(rec);
      return rec;
    },
    transcriptUrl,
    recordingEvent(uuid, event = 'recording.transcript_completed') {
      const r = recordings.find((x) => x.uuid === uuid);
      if (!r) throw new Error(`no recording ${uuid}`);
      return { event, event_ts: Date.now(), payload: { account_id: 'acc-1', object: meetingObject(r) }, download_token: 'dl-token-unused' };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
