import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corsOptions } from '../src/plugins/security.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

const APP_ORIGIN = 'https://app.example.com';
let t: TestApp;
let open: TestApp;
let star: TestApp;

beforeAll(async () => {
  [t, open, star] = await Promise.all([
    createTestApp({
      env: { ...GENEROUS_LIMITS, CORS_ORIGINS: `${APP_ORIGIN}, https://admin.example.com/`, METRICS_TOKEN: 'scrape-secret-123' },
    }),
    createTestApp({ env: GENEROUS_LIMITS }),
    createTestApp({ env: { ...GENEROUS_LIMITS, CORS_ORIGINS: '*' } }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([t.close(), open.close(), star.close()]);
});

const preflight = (app: TestApp, origin: string) =>
  app.app.inject({
    method: 'OPTIONS',
    url: '/api/auth/login',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
  });

describe('CORS from CORS_ORIGINS', () => {
  it('allows no cross-origin caller by default', async () => {
    const res = await preflight(open, APP_ORIGIN);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    // A plain OPTIONS (no Origin) is 204 here too, with the security headers.
    const plain = await open.app.inject({ method: 'OPTIONS', url: '/api/health' });
    expect(plain.statusCode).toBe(204);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    const get = await open.app.inject({ method: 'GET', url: '/api/health', headers: { origin: APP_ORIGIN } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows the listed origins with credentials, and no other', async () => {
    const res = await preflight(t, APP_ORIGIN);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(String(res.headers['access-control-allow-headers'])).toContain('authorization');
    // A page on another origin resumes the notification stream with fetch and Last-Event-ID.
    expect(String(res.headers['access-control-allow-headers'])).toContain('last-event-id');
    // A plain OPTIONS (no Origin) is no preflight: 204, allowing no origin.
    const plain = await t.app.inject({ method: 'OPTIONS', url: '/api/health' });
    expect(plain.statusCode).toBe(204);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    // Preflights carry the security headers too.
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    const admin = await preflight(t, 'https://admin.example.com');
    expect(admin.headers['access-control-allow-origin']).toBe('https://admin.example.com');
    const evil = await preflight(t, 'https://evil.example.com');
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    // An origin not on the list gets no CORS header at all, on a preflight or a request.
    const evilGet = await t.app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'https://evil.example.com' } });
    for (const res of [evil, evilGet]) {
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    const get = await t.app.inject({ method: 'GET', url: '/api/health', headers: { origin: APP_ORIGIN } });
    expect(get.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(String(get.headers['access-control-expose-headers'])).toContain('x-request-id');
    // Every rate-limit header a limited route sends is one a page on another origin may read.
    const limited = await t.app.inject({ method: 'GET', url: '/api/faq', headers: { origin: APP_ORIGIN } });
    const sent = Object.keys(limited.headers).filter((h) => /ratelimit|retry-after/.test(h));
    expect(sent.length).toBeGreaterThan(0);
    const exposed = String(limited.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(sent));
  });

  it('never pairs * with credentials', async () => {
    const res = await preflight(star, 'https://anyone.example.com');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(corsOptions('https://a.example, *')).toEqual({ origin: '*', credentials: false });
    expect(corsOptions('')).toEqual({ origin: false, credentials: false });
  });
});

describe('security headers and no-store', () => {
  it('keeps the CORS and helmet headers on the event stream, which answers outside fastify (hijacked)', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const me = await t.signIn('user');
    const { port } = t.app.server.address() as AddressInfo;
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      const req = http.get(
        {
          port,
          host: '127.0.0.1',
          path: '/api/notifications/stream',
          headers: { authorization: me.headers.authorization, origin: APP_ORIGIN },
        },
        (res) => {
          resolve(res.headers);
          req.destroy();
        },
      );
      req.on('error', reject);
    });
    expect(headers['content-type']).toContain('text/event-stream');
    expect(headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(headers['access-control-allow-credentials']).toBe('true');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(String(headers['content-security-policy'])).toContain("default-src 'self'");
    expect(headers['cache-control']).toBe('no-store');
  });

  it('sends helmet headers on every answer, errors included', async () => {
    // ... the router's own refusals too (a bad percent-escape, an overlong parameter: answered before any hook).
    for (const url of ['/api/health', '/api/faq/not-a-uuid', '/api/nowhere', '/api/faq/%zz', `/api/faq/${'a'.repeat(101)}`]) {
      const res = await open.app.inject({ method: 'GET', url });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBe('SAMEORIGIN');
      expect(String(res.headers['content-security-policy']), url).toContain("default-src 'self'");
      expect(res.headers['strict-transport-security'], url).toBeDefined();
    }
  });

  it('marks every auth answer Cache-Control: no-store, successes and errors', async () => {
    const user = await open.signIn('user');
    const answers = [
      await open.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'nobody@example.com', password: 'wrong-password' },
      }),
      await open.app.inject({ method: 'POST', url: '/api/auth/login', payload: {} }),
      await open.app.inject({ method: 'GET', url: '/api/auth/me' }),
      await open.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers }),
      await open.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: 'x' } }),
      await open.app.inject({ method: 'GET', url: '/api/auth/export', headers: user.headers }),
      // No such route, and a URL the router refuses, under /auth/ too; and the path spelled with escapes.
      await open.app.inject({ method: 'GET', url: '/api/auth/nope' }),
      await open.app.inject({ method: 'GET', url: '/api/%61uth/me', headers: user.headers }),
      await open.app.inject({ method: 'GET', url: '/api/%61uth/n%6Fpe' }),
      await open.app.inject({ method: 'OPTIONS', url: '/api/auth/login' }),
      await open.app.inject({ method: 'PATCH', url: '/api/auth/users/%zz/role', payload: {} }),
    ];
    for (const res of answers) expect(res.headers['cache-control'], `${res.statusCode} ${res.body.slice(0, 80)}`).toBe('no-store');
    expect(answers[3]?.statusCode).toBe(200);
  });

  it("marks every answer to a request with credentials no-store (the caller's own data), and leaves anonymous public reads cacheable", async () => {
    const [user, admin] = await Promise.all([open.signIn('user'), open.signIn('admin')]);
    for (const [url, who] of [
      ['/api/notifications', user],
      ['/api/notifications/settings', user],
      ['/api/reputation/me', user],
      ['/api/moderation/logs', admin],
      ['/api/knowledge/', admin],
      ['/api/faq', admin],
    ] as const) {
      const res = await open.app.inject({ method: 'GET', url, headers: who.headers });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    expect((await open.app.inject({ method: 'GET', url: '/api/faq' })).headers['cache-control']).toBeUndefined();
  });

  it('marks admin answers no-store too: the AI key reveal holds a plaintext secret', async () => {
    const admin = await open.signIn('admin');
    const answers = [
      await open.app.inject({ method: 'GET', url: '/api/admin/ai/config/api-key/openai', headers: admin.headers }),
      await open.app.inject({ method: 'GET', url: '/api/admin/ai/config', headers: admin.headers }),
      await open.app.inject({ method: 'GET', url: '/api/conf/token', headers: admin.headers }),
    ];
    for (const res of answers) expect(res.headers['cache-control'], `${res.statusCode} ${res.body.slice(0, 80)}`).toBe('no-store');
    const faqs = await open.app.inject({ method: 'GET', url: '/api/faq' });
    expect(faqs.headers['cache-control']).not.toBe('no-store');
  });

  it('the docs UI still loads under the content security policy', async () => {
    const page = await open.app.inject({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    // The page loads its scripts from this origin, which the policy allows ('self'), and no inline script.
    expect(page.body).not.toMatch(/<script>[^<]/);
    const scripts = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1] as string);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith('http')).toBe(false);
      const url = src.startsWith('/') ? src : `/api/docs/${src.replace(/^\.\//, '')}`;
      expect((await open.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });
});

describe('/api/metrics and METRICS_TOKEN', () => {
  it('is open without a token configured', async () => {
    expect((await open.app.inject({ method: 'GET', url: '/api/metrics' })).statusCode).toBe(200);
  });

  it('answers only the configured bearer token when set', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/metrics' }), 401, 'METRICS_TOKEN_REQUIRED');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/metrics', headers: { authorization: 'Bearer wrong' } }), 401);
    const admin = await t.signIn('admin');
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/metrics', headers: admin.headers }), 401);
    const ok = await t.app.inject({ method: 'GET', url: '/api/metrics', headers: { authorization: 'Bearer scrape-secret-123' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('http_request_duration_seconds');
  });
});

describe('requests the HTTP parser refuses', () => {
  /**
   * Sends raw bytes and reads the whole answer (the server closes the connection); with `waitMs`, what
   * came in that time if the server keeps the connection open.
   */
  const raw = async (bytes: string, waitMs?: number) => {
    await open.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
    const { port } = open.app.server.address() as AddressInfo;
    return new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
      let out = '';
      socket.on('data', (c) => {
        out += c.toString();
      });
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
      if (waitMs)
        setTimeout(() => {
          socket.destroy();
          resolve(out);
        }, waitMs).unref();
    });
  };
  const parse = (answer: string) => {
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), head: head.toLowerCase(), body: JSON.parse(body) };
  };

  it('answers problem details, like every other error', async () => {
    const length = parse(
      await raw('POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}'),
    );
    expect(length.status).toBe(400);
    expect(length.head).toContain('content-type: application/problem+json');
    expect(length.body).toMatchObject({ status: 400, code: 'INVALID_CONTENT_LENGTH' });
    // The security headers every answer carries.
    expect(length.head).toContain('x-content-type-options: nosniff');
    expect(length.head).toContain('content-security-policy:');
    const chunk = parse(
      await raw(
        'POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      ),
    );
    expect(chunk).toMatchObject({ status: 400, body: { status: 400, code: 'BAD_REQUEST' } });
  });

  it('answers an HTTP/1.1 request without a Host header with problem details too (Node alone answered a bare 400)', async () => {
    const answer = await raw('GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    const { status, head, body } = parse(answer.replace(/\r\n[0-9a-f]+\r\n/i, '\r\n').replace(/\r\n0\r\n\r\n$/, ''));
    expect(status).toBe(400);
    expect(head).toContain('content-type: application/problem+json');
    expect(head).toContain('x-content-type-options: nosniff');
    expect(body).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(body.detail).toContain('Host');
    // HTTP/1.0 needs no Host.
    expect(await raw('GET /api/health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200/);
  });

  it('answers two Host headers with a 400 too, and closes the connection after either 400', async () => {
    // A keep-alive request followed by a pipelined one on the same socket: only the 400 is answered.
    for (const first of ['GET /api/health HTTP/1.1\r\n\r\n', 'GET /api/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n']) {
      const answer = await raw(`${first}GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n`, 5_000);
      expect(answer.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 400']);
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(answer).toContain('Host header');
    }
  });
});
