import { createTestContext } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { ACCESS_LEVELS, type Access } from '../src/lib/access.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * The spec's access table ("Authentication", 3, and the per-area tables), as a function of a route.
 * Paths are without the /api prefix. `null`: the spec gives no rule (the route must still declare a
 * level). A route under a prefix the table owns but not listed here fails the test, so a new route
 * there has to be added on purpose.
 */
function expectedAccess(path: string): Access | null | 'unlisted' {
  const exact: Record<string, Access> = {
    '/health': 'public',
    '/metrics': 'public',
    '/warm': 'public',
    '/log': 'public',
    '/auth/register': 'public',
    '/auth/login': 'public',
    '/auth/refresh': 'public',
    '/auth/logout': 'public',
    '/auth/2fa/verify': 'public',
    '/auth/me': 'user',
    '/auth/profile': 'user',
    '/auth/password': 'user',
    '/auth/export': 'user',
    '/auth/2fa/disable': 'user',
    // Any signed-in user reaches them; core refuses a non-admin with 403 TWO_FACTOR_ADMIN_ONLY.
    '/auth/2fa/setup': 'user',
    '/auth/2fa/enable': 'user',
    '/conf/public-stats': 'public',
    // The spec's conf table gives the callback no access rule: the provider's redirect brings the browser without a token.
    '/conf/auth/callback': 'public',
    '/conf/callback': 'public',
    '/conf/webhook': 'provider',
    '/reputation/leaderboard': 'public',
    '/reputation/me': 'user',
    '/reputation/history': 'user',
    '/search/unresolved-list': 'admin',
    '/search/unresolved-stats': 'admin',
    '/search/unresolved/:id/resolve': 'admin',
    '/batches/:id/default': 'admin',
  };
  if (path in exact) return exact[path] as Access;
  if (path.startsWith('/docs')) return 'public';
  if (path.startsWith('/auth/users')) return 'admin';
  if (path.startsWith('/auth/')) return 'unlisted';
  if (path.startsWith('/admin/analytics')) return 'staff';
  if (path.startsWith('/admin/')) return 'admin';
  if (path.startsWith('/moderation/')) return 'admin';
  if (path.startsWith('/analytics/')) return 'staff';
  if (path === '/knowledge' || path.startsWith('/knowledge/')) return 'admin';
  if (path.startsWith('/conf/')) return 'admin';
  if (path === '/notifications' || path.startsWith('/notifications/') || path.startsWith('/tea/')) return 'user';
  if (path.startsWith('/reputation/')) return 'admin';
  return null;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, RATE_LIMIT_USER_BURST_MAX: '100000' } });
});
afterAll(async () => {
  await t.close();
});

const UUID = '00000000-0000-4000-8000-000000000000';
const concrete = (url: string) => url.replace(/:[A-Za-z_]+(\([^)]*\))?/g, UUID).replace(/\*/g, 'x');

describe('route access table', () => {
  it('every route declares a valid access level, matching the spec where the spec has one', () => {
    const table = t.app.accessTable;
    expect(table.length).toBeGreaterThan(20);
    const mismatches: string[] = [];
    for (const { method, url, access } of table) {
      expect(ACCESS_LEVELS).toContain(access);
      if (!url.startsWith('/api/')) {
        mismatches.push(`${method} ${url}: outside /api`);
        continue;
      }
      const want = expectedAccess(url.slice(4));
      if (want === 'unlisted') mismatches.push(`${method} ${url}: not in the access table of this test`);
      else if (want !== null && want !== access) mismatches.push(`${method} ${url}: declares ${access}, spec says ${want}`);
    }
    expect(mismatches).toEqual([]);
    // The identity routes are in it.
    const listed = new Set(table.map((r) => `${r.method} ${r.url}`));
    for (const r of ['POST /api/auth/login', 'GET /api/admin/users/:id', 'PUT /api/admin/users/:id/role', 'GET /api/moderation/logs']) {
      expect(listed).toContain(r);
    }
  });

  it("issue 18's routes and aliases (reputation, notifications, tea drops, analytics, dashboards) exist with the spec's level", () => {
    const want: [string, string, Access][] = [
      ['GET', '/reputation/leaderboard', 'public'],
      ['GET', '/reputation/me', 'user'],
      ['GET', '/reputation/history', 'user'],
      ['GET', '/reputation/user/:userId', 'admin'],
      ...(['/reputation/points', '/reputation/award'] as const).map((u): [string, string, Access] => ['POST', u, 'admin']),
      ...(['/reputation/badge/issue', '/reputation/badge', '/reputation/badge/revoke', '/reputation/revoke-badge'] as const).map(
        (u): [string, string, Access] => ['POST', u, 'admin'],
      ),
      ['GET', '/notifications', 'user'],
      ['PUT', '/notifications/:id/read', 'user'],
      ['PUT', '/notifications/read-all', 'user'],
      ['GET', '/notifications/settings', 'user'],
      ['PUT', '/notifications/settings', 'user'],
      ['GET', '/notifications/tea', 'user'],
      ['GET', '/tea/drops', 'user'],
      ['GET', '/notifications/tea/unread-count', 'user'],
      ['PATCH', '/notifications/tea/read-all', 'user'],
      ['PATCH', '/notifications/tea/:id/read', 'user'],
      ['GET', '/notifications/stream', 'user'],
      ...(['/analytics/overview', '/analytics/search', '/analytics/community'] as const).map((u): [string, string, Access] => [
        'GET',
        u,
        'staff',
      ]),
      ...(
        [
          '/admin/stats',
          '/admin/faqs',
          '/admin/faqs/growth',
          '/admin/community',
          '/admin/community/chart',
          '/admin/search/insights',
          '/admin/user-activity',
          '/admin/community-growth',
        ] as const
      ).map((u): [string, string, Access] => ['GET', u, 'admin']),
    ];
    const declared = new Map(t.app.accessTable.map((r) => [`${r.method} ${r.url}`, r.access]));
    expect(want.map(([m, u]) => `${m} ${u} ${declared.get(`${m} /api${u}`) ?? 'missing'}`)).toEqual(
      want.map(([m, u, a]) => `${m} ${u} ${a}`),
    );
  });

  it('enforces the declared level on every route: no token 401, too low a role 403', async () => {
    const user = await t.signIn('user');
    const moderator = await t.signIn('moderator');
    const failures: string[] = [];
    for (const { method, url, access } of t.app.accessTable) {
      if (access === 'public' || access === 'provider' || method === 'HEAD') continue;
      const target = concrete(url);
      const anon = await t.app.inject({ method: method as 'GET', url: target });
      if (anon.statusCode !== 401) failures.push(`${method} ${url} without a token: ${anon.statusCode}`);
      const tooLow = access === 'admin' ? [user, moderator] : access === 'staff' ? [user] : [];
      for (const who of tooLow) {
        const res = await t.app.inject({ method: method as 'GET', url: target, headers: who.headers });
        if (res.statusCode !== 403) failures.push(`${method} ${url} as ${who.role}: ${res.statusCode}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a route without an access level stops the app at registration', async () => {
    const ctx = await createTestContext();
    const app = await buildApp({ ctx: ctx.ctx, logger: false });
    try {
      expect(() => app.get('/api/forgotten', async () => 'x')).toThrow(/declares no access level/);
    } finally {
      await app.close();
      await ctx.close();
    }
  });

  it('a query string schema that leaves unknown parameters unsaid stops the app at registration', async () => {
    const ctx = await createTestContext();
    const app = await buildApp({ ctx: ctx.ctx, logger: false });
    try {
      const loose = { type: 'object', properties: { status: { type: 'string' } } };
      expect(() => app.get('/api/loose', { config: { access: 'public' }, schema: { querystring: loose } }, async () => 'x')).toThrow(
        /must set additionalProperties/,
      );
    } finally {
      await app.close();
      await ctx.close();
    }
  });

  it('a misspelt query parameter is a 400 naming it (these routes ignored it and answered everything)', async () => {
    const admin = await t.signIn('admin');
    const urls = [
      '/api/conf/meetings?stauts=failed',
      '/api/conf/insights?stauts=approved',
      '/api/conf/public-stats?batchid=x',
      '/api/knowledge?tpye=transcript',
      '/api/knowledge/search?q=wifi&limt=3',
      '/api/admin/auto-answer/queue?stauts=suggested',
      '/api/admin/auto-answer/calibration?published_by=all',
      `/api/faq/${UUID}/history?pgae=2`,
      `/api/community/posts/${UUID}/comments?pgae=2`,
      '/api/faq/categories?batchid=x',
      '/api/search/unresolved-stats?batchid=x',
      `/api/batches/${UUID}?include_archived=true`,
    ];
    const failures: string[] = [];
    for (const url of urls) {
      const res = await t.app.inject({ method: 'GET', url, headers: admin.headers });
      const body = res.json() as { code?: string; errors?: { path: string }[] };
      const misspelt = url.split(/[?&]/).at(-1)?.split('=')[0] as string;
      if (res.statusCode !== 400 || !body.errors?.some((e) => e.path.includes(misspelt))) {
        failures.push(`${url}: ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    // The message says what is wrong with an unknown field (Ajv's read as if the field had extra members).
    const misspeltQuery = await t.app.inject({ method: 'GET', url: '/api/conf/meetings?stauts=failed', headers: admin.headers });
    expect(misspeltQuery.json()).toMatchObject({ errors: [{ path: 'query.stauts', message: 'is not a field this route takes' }] });
    const misspeltBody = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/ai/config',
      headers: admin.headers,
      payload: { keys: {} },
    });
    expect(misspeltBody.json()).toMatchObject({ errors: [{ path: 'body.keys', message: 'is not a field this route takes' }] });
    // An item's own pages take the program a client may send on every read, as the item routes do.
    for (const url of [`/api/faq/${UUID}/history?batchId=${UUID}&page=1`, `/api/community/posts/${UUID}/comments?batchId=${UUID}`]) {
      expectProblem(await t.app.inject({ method: 'GET', url }), 404);
    }
    // Every read, with or without a query of its own, names an unknown parameter (item reads and
    // /auth/me ignored it), and a read without one takes a batchId and ignores it.
    const loose: string[] = [];
    for (const { method, url } of t.app.accessTable) {
      if (method !== 'GET' || url.startsWith('/api/docs') || /\/callback$/.test(url)) continue;
      const res = await t.app.inject({
        method: 'GET',
        url: `${concrete(url.replace(':provider', 'openai'))}?zzUnknown=1`,
        headers: admin.headers,
      });
      const errors = (res.json() as { errors?: { path: string }[] }).errors ?? [];
      if (res.statusCode !== 400 || !errors.some((e) => e.path === 'query.zzUnknown')) loose.push(`${url}: ${res.statusCode}`);
    }
    expect(loose).toEqual([]);
    const me = await t.app.inject({ method: 'GET', url: `/api/auth/me?batchId=${UUID}`, headers: admin.headers });
    expect(me.statusCode).toBe(200);
    // A write without a query of its own refuses one: the program goes in the body, and ?batchId= put
    // the FAQ in the default program with a 201.
    const before = (await t.app.inject({ method: 'GET', url: '/api/faq?limit=1', headers: admin.headers })).json().total;
    const write = await t.app.inject({
      method: 'POST',
      url: `/api/faq?batchId=${UUID}`,
      headers: admin.headers,
      payload: { question: 'Which program does this land in?', answer: 'The one named in the body.' },
    });
    expect(write.json()).toMatchObject({ status: 400, errors: [{ path: 'query.batchId', message: 'is not a field this route takes' }] });
    expect((await t.app.inject({ method: 'GET', url: '/api/faq?limit=1', headers: admin.headers })).json().total).toBe(before);
    // The OAuth callback keeps ignoring what the provider adds (RFC 6749 §4.1.2): no validation error.
    const callback = await t.app.inject({ method: 'GET', url: '/api/conf/callback?state=abc&code=x&provider_extra=1' });
    expect((callback.json() as { code?: string }).code).not.toBe('VALIDATION_FAILED');
  });

  it('suspended users are refused on every protected route', async () => {
    const suspended = await t.signIn('admin', { status: 'suspended' });
    // Another admin stays active, so the table's last-admin rules are not in play.
    await t.signIn('admin');
    for (const { method, url, access } of t.app.accessTable) {
      if (access === 'public' || access === 'provider' || method === 'HEAD') continue;
      expectProblem(
        await t.app.inject({ method: method as 'GET', url: concrete(url), headers: suspended.headers }),
        403,
        'ACCOUNT_SUSPENDED',
      );
    }
  });
});
