import { rmSync } from 'node:fs';
import { embeddedDataDir, type Spawned, spawnEntry } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The README's main command (`npm start`, no DATABASE_URL: PGlite behind its socket server) under
 * concurrent load: every pool connection of the API, the worker and pg-boss reaches one PGlite
 * session, so anything that leans on per-connection state (named prepared statements, session
 * settings, advisory locks) or on the server interleaving two connections' messages shows up here.
 */
const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;
const ADMIN = { email: 'admin@example.test', password: 'embedded-admin-password' };

let dataDir: string;
let p: Spawned;
let base: string;

interface Res {
  status: number;
  body: unknown;
}
async function call(method: string, path: string, body?: unknown, token?: string): Promise<Res> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const ok = (r: Res, status = 200) => {
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as Record<string, unknown>;
};

beforeAll(async () => {
  // A copy of a migrated PGlite folder: the first-start path (initdb, migrations) is embedded-start.test.ts's.
  dataDir = await embeddedDataDir('migrated', 'cfaq-embedded-conc-');
  p = spawnEntry('scripts/start.ts', {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_REGISTER_MAX: '1000',
    RATE_LIMIT_IDENTITY_MAX: '1000',
    RATE_LIMIT_LOGIN_MAX: '1000',
  });
  const [, port] = await p.waitFor(listening, 170_000);
  base = `http://127.0.0.1:${port}/api`;
}, 180_000);

afterAll(async () => {
  if (p) {
    const { code } = await p.stop('SIGTERM');
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    expect(code).toBe(0);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded default under concurrency', () => {
  it('answers parallel searches, votes, writes and job processing with no 5xx and no lost update', async () => {
    const admin = ok(await call('POST', '/auth/login', ADMIN)).accessToken as string;

    // Parallel writes: FAQs whose embeddings the worker computes while the rest runs.
    const faqs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('POST', '/faq', { question: `How do I reset my password, variant ${i}?`, answer: `Use the reset link, step ${i}.` }, admin),
      ),
    );
    for (const r of faqs) ok(r, 201);

    // Nine users in parallel: one author's post already has one vote (not the author's).
    const users = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const email = `voter${i}@example.test`;
        ok(await call('POST', '/auth/register', { email, password: 'long-enough-password', name: `Voter ${i}` }), 201);
        return ok(await call('POST', '/auth/login', { email, password: 'long-enough-password' })).accessToken as string;
      }),
    );
    const [author, first, ...voters] = users as [string, string, ...string[]];
    const post = ok(
      await call('POST', '/community/posts', { title: 'Where is the schedule?', body: 'I cannot find the schedule page.' }, author),
      201,
    );
    ok(await call('POST', `/community/posts/${post.id}/upvote`, undefined, first));

    const searches = (n: number) =>
      Array.from({ length: n }, (_, i) => call('POST', '/search', { query: i % 2 ? 'reset password' : `schedule page ${i}` }));
    const results = await Promise.all([
      ...searches(8),
      ...voters.map((t) => call('POST', `/community/posts/${post.id}/upvote`, undefined, t)),
      ...searches(8),
      call('GET', '/search/suggest?q=reset'),
      call('POST', '/faq/check-duplicate', { query: 'How do I reset my password?' }, admin),
      ...Array.from({ length: 4 }, (_, i) =>
        call('POST', '/community/posts', { title: `Parallel post ${i}`, body: 'Written while others search and vote.' }, users[i]),
      ),
      ...Array.from({ length: 4 }, (_, i) =>
        call('POST', '/faq', { question: `Where do I find session ${i} slides?`, answer: 'In the program resources page.' }, admin),
      ),
    ]);
    const failures = results.filter((r) => r.status >= 500);
    expect(failures).toEqual([]);
    expect(results.filter((r) => r.status >= 300)).toEqual([]);

    const after = ok(await call('GET', `/community/posts/${post.id}`));
    expect(after.upvotes).toBe(9);

    // Searching keeps working after the burst (a broken session would fail every later search).
    const again = await Promise.all(searches(8));
    expect(again.map((r) => r.status)).toEqual(Array(8).fill(200));

    // The result cache follows writes on the embedded database too (its generation lives in the database).
    const titles = async () =>
      ((ok(await call('POST', '/search', { query: 'where is the schedule' })).results ?? []) as { title: string }[]).map((r) => r.title);
    expect(await titles()).toContain('Where is the schedule?');
    expect(await titles()).toContain('Where is the schedule?');
    ok(await call('DELETE', `/community/posts/${post.id}`, undefined, author), 204);
    expect(await titles()).not.toContain('Where is the schedule?');

    // The worker's jobs ran through the same session: the FAQs written in the burst get embeddings
    // (a FAQ is in the vector list only once embedded). Each try varies the text to miss the cache.
    const deadline = Date.now() + 30_000;
    let embedded = false;
    for (let k = 0; !embedded && Date.now() < deadline; k++) {
      const hits = ok(await call('POST', '/search', { query: `Where do I find session 3 slides? ${'?'.repeat(k)}` }));
      const results = hits.results as { title: string; vectorRank: number | null }[];
      embedded = results.some((r) => r.title === 'Where do I find session 3 slides?' && r.vectorRank !== null);
      if (!embedded) await new Promise((r) => setTimeout(r, 300));
    }
    expect(embedded).toBe(true);
  }, 120_000);

  it('answers every dashboard on the embedded database (bucketing, rollup and index SQL on PGlite)', async () => {
    const admin = ok(await call('POST', '/auth/login', ADMIN)).accessToken as string;
    const paths = [
      '/analytics/overview',
      '/analytics/search?interval=week',
      '/analytics/community',
      '/admin/stats',
      '/admin/faqs?freshness=fresh&sort=reviewDue',
      '/admin/faqs/growth?interval=month',
      '/admin/community',
      '/admin/community/chart',
      '/admin/search/insights',
      '/admin/user-activity',
      '/admin/community-growth?interval=week',
    ];
    const bodies = await Promise.all(paths.map(async (path) => ok(await call('GET', path, undefined, admin))));
    const [overview, , community] = bodies as [{ faqs: { created: number } }, unknown, { posts: number; series: unknown[] }];
    // The first test wrote 10 FAQs and 5 posts today (one of them deleted).
    expect(overview.faqs.created).toBe(10);
    expect(community.posts).toBe(4);
    expect(community.series).toHaveLength(30);
    expectProblem400(await call('GET', '/analytics/overview?from=2026-02-30', undefined, admin));
  }, 60_000);
});

function expectProblem400(r: Res) {
  expect(r.status).toBe(400);
  expect(JSON.stringify(r.body)).toContain('from');
}
