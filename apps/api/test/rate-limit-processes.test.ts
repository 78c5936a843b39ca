import { type ApiProcesses, cloneDatabase, startApis, TEST_ENV } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * The security limiters with two API processes on one database (the README's scaling advice): the
 * counters live in PostgreSQL, so alternating between the processes gains an attacker nothing.
 */
let db: { url: string; drop: () => Promise<void> };
let apis: ApiProcesses | undefined;
let bases: [string, string];
let userToken = '';

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
  const env = {
    ...TEST_ENV,
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    MIGRATE_ON_START: 'true',
    RATE_LIMIT_LOGIN_MAX: '3',
    RATE_LIMIT_LOGIN_ADDRESS_MAX: '1000',
    RATE_LIMIT_REGISTER_MAX: '3',
    RATE_LIMIT_IDENTITY_MAX: '1000',
    RATE_LIMIT_SUGGEST_MAX: '2',
    SEARCH_SUGGEST_RATE_LIMIT: '3',
  };
  apis = await startApis(2, env);
  bases = apis.bases as [string, string];
}, 180_000);

afterAll(async () => {
  await apis?.stop();
  await db.drop();
});

describe('security limiters across API processes', () => {
  it('failed logins alternating between two processes hit one limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await post(bases[i % 2] as string, '/auth/login', { email: TEST_ENV.ADMIN_EMAIL, password: 'not-the-password' });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Per process, each would have allowed 3 (six 401s); shared, the 4th attempt overall is refused.
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
  });

  it('registrations alternating between two processes hit one limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await post(bases[i % 2] as string, '/auth/register', {
        email: `across-${i}@example.test`,
        password: 'a-good-password',
        name: `Across ${i}`,
      });
      statuses.push(res.status);
      if (res.status === 201) userToken = ((await res.json()) as { accessToken: string }).accessToken;
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
  });

  it("one user's FAQ suggestions per hour, alternating between two processes, hit one limit", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await fetch(`${bases[i % 2]}/faq/suggest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${userToken}` },
        body: JSON.stringify({ question: `How do processes share limit number ${i}?` }),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([201, 201, 429, 429]);
  });

  it('search suggestions per minute (the spec: 30), alternating between two processes, hit one limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await fetch(`${bases[i % 2]}/search/suggest?q=how`)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
