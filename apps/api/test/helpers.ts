import type { Role } from '@cfaq/core';
import { type CreatedUser, createTestContext, createUser, type TestContext, type TestContextOptions } from '@cfaq/testkit';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';

export interface TestApp extends TestContext {
  app: FastifyInstance;
  /** Creates a user of the role and returns it with a Bearer header for `inject`. */
  signIn(role?: Role, opts?: Parameters<typeof createUser>[1]): Promise<CreatedUser & { headers: { authorization: string } }>;
}

/** The real app over a database of this file's own. */
export async function createTestApp(opts: TestContextOptions = {}): Promise<TestApp> {
  const t = await createTestContext(opts);
  const app = await buildApp({ ctx: t.ctx, logger: false });
  await app.ready();
  return {
    ...t,
    app,
    async signIn(role: Role = 'user', userOpts = {}) {
      const user = await createUser(t.ctx, { ...userOpts, role });
      return { ...user, headers: { authorization: `Bearer ${app.issueAccessToken(user.id)}` } };
    },
    async close() {
      await app.close();
      await t.close();
    },
  };
}

/** Asserts an RFC 9457 problem response and returns its body. */
export function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code?: string,
) {
  const body = res.json() as { status: number; code: string; detail: string; errors?: { path: string; message: string }[] };
  if (
    res.statusCode !== status ||
    !String(res.headers['content-type']).startsWith('application/problem+json') ||
    (code && body.code !== code)
  ) {
    throw new Error(`expected problem ${status}${code ? ` ${code}` : ''}, got ${res.statusCode} ${JSON.stringify(body)}`);
  }
  return body;
}

/** Identity limiters raised out of the way, for files that sign in and register many times. */
export const GENEROUS_LIMITS: Record<string, string> = {
  RATE_LIMIT_LOGIN_MAX: '10000',
  RATE_LIMIT_REGISTER_MAX: '10000',
  RATE_LIMIT_IDENTITY_MAX: '10000',
  RATE_LIMIT_PASSWORD_MAX: '10000',
  RATE_LIMIT_TWO_FACTOR_MAX: '10000',
  RATE_LIMIT_ADMIN_WRITE_MAX: '10000',
};

type Pool = TestApp['ctx']['pool'];

/** Waits (up to about 15 s) until `n` sessions of this file's database wait on a lock; false if they never do. */
export async function lockWaiters(pool: Pool, n = 1): Promise<boolean> {
  for (let i = 0; i < 1500; i += 1) {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (Number(rows[0]?.n) >= n) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

/**
 * A race made deterministic: `sql` (the other side's write) runs on a second connection and stays
 * uncommitted while `action` starts; once the action waits on its lock, the write commits, and the
 * action's answer is returned (it saw the write land between its checks and its own write).
 */
export async function whileHeld<R>(pool: Pool, sql: string, params: unknown[], action: () => Promise<R>): Promise<R> {
  const other = await pool.connect();
  try {
    await other.query('BEGIN');
    await other.query(sql, params);
    const pending = action();
    if (!(await lockWaiters(pool))) throw new Error('the action never waited on the held lock');
    await other.query('COMMIT');
    return await pending;
  } finally {
    other.release();
  }
}

/** A program settings document every rule accepts (PUT /batches/:id/settings). */
export const VALID_PROGRAM_SETTINGS = {
  theme: { primaryColor: '#112233', accentColor: '#abc', background: 'mist', fontFamily: 'sans' },
  hero: { title: 'Hello', subtitle: 'World' },
  sections: {
    showStats: false,
    showFAQs: true,
    showCommunity: true,
    showZoom: false,
    showKB: true,
    sectionOrder: ['faqs', 'kb', 'community', 'stats', 'zoom'],
  },
  branding: { logoText: 'L', footerText: 'F' },
};
