import { Type as T } from '@sinclair/typebox';
import Fastify, { type InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNul } from '../src/plugins/input-guard.js';
import { problemPlugin } from '../src/plugins/problem.js';
import { createTestApp, expectProblem, GENEROUS_LIMITS, type TestApp } from './helpers.js';
import { bearer, craftJwt } from './tokens.js';

type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let admin: Who;
let user: Who;
let postId: string;

beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
  [admin, user] = await Promise.all([t.signIn('admin'), t.signIn('user')]);
  const post = await t.app.inject({
    method: 'POST',
    url: '/api/community/posts',
    headers: user.headers,
    payload: { title: 'A post', body: 'A body' },
  });
  postId = post.json().id;
});
afterAll(async () => {
  await t.close();
});

const fieldOf = (res: Parameters<typeof expectProblem>[0]) => expectProblem(res, 400, 'VALIDATION_FAILED').errors?.[0]?.path;

describe('NUL characters are refused in one place, for every route', () => {
  it('names the field in bodies, queries and path parameters', async () => {
    const cases: [InjectOptions, string][] = [
      [{ method: 'POST', url: '/api/search', payload: { query: 'visa\u0000' } }, 'body.query'],
      [{ method: 'GET', url: '/api/search/suggest?q=vi%00sa' }, 'query.q'],
      [{ method: 'POST', url: '/api/auth/login', payload: { email: 'a\u0000@example.com', password: 'x' } }, 'body.email'],
      [{ method: 'GET', url: '/api/batches/by-slug/spring%00' }, 'params.slug'],
      [{ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Spring\u0000' } }, 'body.name'],
      [{ method: 'PATCH', url: '/api/auth/profile', headers: user.headers, payload: { bio: 'hi\u0000' } }, 'body.bio'],
      [{ method: 'GET', url: '/api/faq?text=a%00', headers: user.headers }, 'query.text'],
      [
        { method: 'POST', url: `/api/community/posts/${postId}/comments`, headers: user.headers, payload: { body: 'x\u0000y' } },
        'body.body',
      ],
      [{ method: 'PUT', url: `/api/community/posts/${postId}`, headers: user.headers, payload: { body: '\u0000' } }, 'body.body'],
    ];
    for (const [req, path] of cases) expect(fieldOf(await t.app.inject(req)), `${req.method} ${req.url}`).toBe(path);
  });

  it('finds NUL in nested values and keys', () => {
    expect(findNul({ a: [{ b: 'ok' }, { c: 'x\u0000' }] }, 'body')).toBe('body.a.1.c');
    expect(findNul({ ['k\u0000']: 1 }, 'body')).toBe('body.k\\u0000');
    expect(findNul({ a: 'fine', n: 1, z: null }, 'body')).toBeNull();
  });

  it('says a value nested too deep is too deep, not that it holds a NUL', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    const res = await t.app.inject({ method: 'POST', url: '/api/search', payload: { query: deep } });
    const body = expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(body.errors?.[0]?.message).toMatch(/nested deeper than 32 levels/);
    expect(body.errors?.[0]?.path).toMatch(/^body\.query\.0\.0/);
  });
});

describe('lone surrogate halves in a JSON body', () => {
  // JSON can spell half a surrogate pair; text cannot hold it. Text columns got U+FFFD, but JSON columns
  // (FAQ revisions, the admin log) refused it and the write failed with 400 VALUE_OUT_OF_RANGE.
  const raw = (text: string) => `"${text}\\ud800 and \\udc00"`;
  const injectRaw = (method: 'POST' | 'PUT' | 'PATCH', url: string, json: string) =>
    t.app.inject({ method, url, headers: { ...admin.headers, 'content-type': 'application/json' }, payload: json });

  it('become U+FFFD on every route, also where the text reaches a JSON column', async () => {
    const faq = await t.app.inject({
      method: 'POST',
      url: '/api/faq',
      headers: admin.headers,
      payload: { question: 'A question with a surrogate?', answer: 'An answer.', category: 'general' },
    });
    expect(faq.statusCode).toBe(201);
    const edited = await injectRaw('PUT', `/api/faq/${faq.json().id}`, `{"answer":${raw('edited')}}`);
    expect(edited.statusCode).toBe(200);
    expect(edited.json().answer).toBe('edited\uFFFD and \uFFFD');
    const history = await t.app.inject({ method: 'GET', url: `/api/faq/${faq.json().id}/history`, headers: admin.headers });
    expect(JSON.stringify(history.json())).toContain('edited\uFFFD and \uFFFD');

    const batch = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Surrogates' } });
    const renamed = await injectRaw('PATCH', `/api/batches/${batch.json().id}`, `{"name":${raw('Renamed')}}`);
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().name).toBe('Renamed\uFFFD and \uFFFD');
    // A pair stays a pair.
    const post = await injectRaw('POST', '/api/community/posts', `{"title":"Pair \\ud83d\\ude00 kept","body":${raw('body')}}`);
    expect(post.statusCode).toBe(201);
    expect(post.json()).toMatchObject({ title: 'Pair \u{1F600} kept', body: 'body\uFFFD and \uFFFD' });
  });
});

describe("a body's bytes: UTF-8, with no content coding", () => {
  const faqCount = async () => (await t.app.inject({ method: 'GET', url: '/api/faq?limit=1', headers: admin.headers })).json().total;
  const postFaq = (headers: Record<string, string>, payload: Buffer) =>
    t.app.inject({ method: 'POST', url: '/api/faq', headers: { ...admin.headers, ...headers }, payload });
  const json = (question: string) => Buffer.from(`{"question":"${question}","answer":"An answer in its own words."}`, 'latin1');

  it('refuses bytes that are not UTF-8 (400) and a charset other than UTF-8 (415), storing nothing', async () => {
    const before = await faqCount();
    // "Café" in ISO-8859-1: it was stored as "Caf\uFFFD" with a 201.
    const latin1 = json('Caf\xe9 opening hours in winter?');
    expectProblem(await postFaq({ 'content-type': 'application/json' }, latin1), 400, 'INVALID_JSON');
    expectProblem(await postFaq({ 'content-type': 'application/json; charset=iso-8859-1' }, latin1), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await faqCount()).toBe(before);
    // UTF-8, labelled or not, with or without a byte order mark, is read as sent.
    const cafe = Buffer.from('{"question":"Café opening hours in summer?","answer":"From nine to five."}', 'utf8');
    const labelled = await postFaq({ 'content-type': 'application/json; charset=UTF-8' }, cafe);
    expect(labelled.statusCode).toBe(201);
    expect(labelled.json().question).toBe('Café opening hours in summer?');
    const bom = await postFaq(
      { 'content-type': 'application/json' },
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"question":"Café hours with a BOM?","answer":"The same."}')]),
    );
    expect(bom.statusCode).toBe(201);
  });

  it('refuses a body in a content coding (415) rather than reading it as plain or calling it malformed', async () => {
    const before = await faqCount();
    const plain = json('Is a body labelled gzip read?');
    for (const coding of ['gzip', 'br', 'deflate']) {
      expectProblem(
        await postFaq({ 'content-type': 'application/json', 'content-encoding': coding }, plain),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    }
    const { gzipSync } = await import('node:zlib');
    const gz = await postFaq({ 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(plain));
    expect(expectProblem(gz, 415, 'UNSUPPORTED_MEDIA_TYPE').detail).toMatch(/Content-Encoding gzip/);
    expect(await faqCount()).toBe(before);
    // identity is no coding; a request without a body is not refused for the header.
    expect((await postFaq({ 'content-type': 'application/json', 'content-encoding': 'identity' }, plain)).statusCode).toBe(201);
    const get = await t.app.inject({ method: 'GET', url: '/api/faq', headers: { ...admin.headers, 'content-encoding': 'gzip' } });
    expect(get.statusCode).toBe(200);
  });
});

describe('an e-mail address to register, and control characters in text people read', () => {
  const register = (email: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/register', payload: { email, password: 'a-good-password', name: 'Look alike' } });

  it('refuses invisible, direction and control characters in an address (look-alikes of another account)', async () => {
    for (const email of [
      'admin@exa\u200bmple.com',
      'admin@example.com\u200b',
      'admin\u202e@example.com',
      'ad\u0007min@example.com',
      'a@b..c',
      // Other planes' characters that render as nothing, and the blank Braille pattern.
      'admin@example.com\u{E0061}',
      'admin@example.com\u{E0100}',
      'admin@example.com\u{1D173}',
      'admin@example.com\u2800',
    ]) {
      const res = await register(email);
      expect(fieldOf(res), JSON.stringify(email)).toBe('body.email');
      expect(res.json().errors[0].message).toMatch(/^must be an e-mail address/);
    }
    expect((await register('  Someone.Else+tag@Example.co.uk ')).statusCode).toBe(201);
    // The same address in decomposed form (e + combining acute) is the same address, not a second account.
    expect((await register('ren\u00e9@example.com')).statusCode).toBe(201);
    expectProblem(await register('rene\u0301@example.com'), 409, 'EMAIL_TAKEN');
  });

  it('checks an oversize address in linear time: a 160 KB a@a.a.a... held the process for a minute', async () => {
    // Ajv runs the pattern beside the failed maxLength; the old pattern backtracked quadratically over it.
    const res = await register(`a@${'a.'.repeat(80_000)}@`);
    expect(fieldOf(res)).toBe('body.email');
  });

  it('does not count control characters as visible: a question of five of them is no question', async () => {
    const faq = await t.app.inject({
      method: 'POST',
      url: '/api/faq',
      headers: admin.headers,
      payload: { question: '\u0001\u0002\u0003\u0004\u0005', answer: '\u0080' },
    });
    expect(expectProblem(faq, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['body.question', 'body.answer']);
    const name = await t.app.inject({ method: 'PATCH', url: '/api/auth/profile', headers: user.headers, payload: { name: '\u0007' } });
    expect(fieldOf(name)).toBe('body.name');
    // Text around a control character is still text, stored as sent.
    const kept = await t.app.inject({
      method: 'POST',
      url: '/api/faq',
      headers: admin.headers,
      payload: { question: 'Bell \u0007 in a question?', answer: 'Kept as sent.' },
    });
    expect(kept.json().question).toBe('Bell \u0007 in a question?');
  });
});

describe('a JSON body keeps its types (coercion is for query strings and paths only)', () => {
  it('refuses a wrong type naming the field, and keeps null as null', async () => {
    const cases: [InjectOptions, string][] = [
      [{ method: 'POST', url: '/api/auth/login', payload: { email: 123, password: 'x' } }, 'body.email'],
      [
        { method: 'POST', url: '/api/community/posts', headers: user.headers, payload: { title: ['A title'], body: 'A body' } },
        'body.title',
      ],
      [{ method: 'POST', url: '/api/search', payload: { query: 12345 } }, 'body.query'],
      [{ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name: 'Typed', description: 5 } }, 'body.description'],
    ];
    for (const [req, path] of cases) expect(fieldOf(await t.app.inject(req)), `${req.method} ${req.url}`).toBe(path);
    const profile = (bio: string | null) =>
      t.app.inject({ method: 'PATCH', url: '/api/auth/profile', headers: user.headers, payload: { bio } });
    expect((await profile('Hello')).json().bio).toBe('Hello');
    // Coerced, null became "" (the string branch of the nullable field took it first).
    expect((await profile(null)).json().bio).toBeNull();
    // Query strings still coerce: page=2 is a number.
    expect((await t.app.inject({ method: 'GET', url: '/api/faq?page=2&limit=5' })).statusCode).toBe(200);
  });

  it('lists at most 50 field errors, however many unknown fields a body holds (no amplification)', async () => {
    const payload: Record<string, unknown> = { email: 'a@b.test', password: 'a-good-password', name: 'Many' };
    for (let i = 0; i < 2000; i++) payload[`extra${i}`] = 1;
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/register', payload });
    const body = expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(body.errors).toHaveLength(50);
    expect(body.errors?.[0]?.path).toBe('body.extra0');
    expect(body.detail).toMatch(/; and 1950 more$/);
    expect(res.body.length).toBeLessThan(10_000);
  });
});

describe('numbers and dates out of range', () => {
  it('refuses a page past the bound, naming query.page', async () => {
    for (const page of ['999999999999999999999', '10001', '1e400']) {
      for (const url of [`/api/batches?page=${page}`, `/api/faq?page=${page}`, `/api/community/posts?page=${page}`]) {
        expect(fieldOf(await t.app.inject({ method: 'GET', url, headers: admin.headers })), url).toBe('query.page');
      }
    }
    const last = await t.app.inject({ method: 'GET', url: '/api/batches?page=10000', headers: admin.headers });
    expect(last.statusCode).toBe(200);
  });

  it('refuses years PostgreSQL cannot store, naming the field', async () => {
    const start = await t.app.inject({
      method: 'POST',
      url: '/api/batches',
      headers: admin.headers,
      payload: { name: 'Year zero', startDate: '0000-01-01' },
    });
    expect(fieldOf(start)).toBe('body.startDate');
    const until = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/suspend',
      headers: admin.headers,
      payload: { userId: user.id, reason: 'spam', until: '0000-01-01T00:00:00Z' },
    });
    expect(fieldOf(until)).toBe('body.until');
    // The date-time format admits a leap second, which Date cannot hold (it was a 500), and reads the
    // year before the offset (2999-12-31T23:00-14:00 is the year 3000).
    for (const at of ['2030-06-30T23:59:60Z', '2999-12-31T23:00:00-14:00']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/moderation/suspend',
        headers: admin.headers,
        payload: { userId: user.id, reason: 'spam', until: at },
      });
      expect(fieldOf(res), at).toBe('body.until');
    }
    expect((await t.app.inject({ method: 'GET', url: `/api/admin/users/${user.id}`, headers: admin.headers })).json()).toMatchObject({
      status: 'active',
    });
    const backfill = await t.app.inject({
      method: 'POST',
      url: '/api/conf/auth/backfill?fromDate=0000-01-01&toDate=0000-02-01',
      headers: admin.headers,
    });
    expect(fieldOf(backfill)).toBe('query.fromDate');
    for (const url of ['/api/admin/escalation-history', '/api/admin/community/escalation-history', '/api/admin/audit/results']) {
      const res = await t.app.inject({ method: 'GET', url: `${url}?from=0000-01-01T00:00:00Z`, headers: admin.headers });
      expect(fieldOf(res), url).toBe('query.from');
    }
  });

  it('takes a uuid as its 36 characters alone: a urn:uuid: prefix is a 400 naming the field, not a database refusal', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const cases: [InjectOptions, string][] = [
      [{ method: 'GET', url: `/api/faq/urn:uuid:${id}` }, 'params.id'],
      [{ method: 'GET', url: `/api/community/posts?authorId=URN:UUID:${id}` }, 'query.authorId'],
      [{ method: 'POST', url: '/api/search', payload: { query: 'library card', batchId: `urn:uuid:${id}` } }, 'body.batchId'],
    ];
    for (const [req, field] of cases)
      expect(fieldOf(await t.app.inject({ ...req, headers: admin.headers })), req.url as string).toBe(field);
    // Ids are lower case, as the API writes them: an upper-case spelling of one's own id passed the
    // self checks' string comparison (an admin suspended themself).
    const self = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/suspend',
      headers: admin.headers,
      payload: { userId: admin.id.toUpperCase(), reason: 'self test' },
    });
    expect(fieldOf(self)).toBe('body.userId');
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers })).statusCode).toBe(200);
  });

  it('treats a token whose sub is not a uuid as no caller (401 on protected routes, anonymous on public ones)', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const sub of ['------------------------------------', 'admin', '1']) {
      const token = craftJwt({ sub, typ: 'access', iat: now, exp: now + 600 });
      expectProblem(await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) }), 401);
      expect((await t.app.inject({ method: 'GET', url: '/api/faq', headers: bearer(token) })).statusCode).toBe(200);
    }
  });
});

describe('a value outside a union of literals is one error naming the allowed values', () => {
  const errorsOf = (res: Parameters<typeof expectProblem>[0]) => expectProblem(res, 400, 'VALIDATION_FAILED').errors ?? [];

  it('in a query string, a JSON body and a nested array', async () => {
    // Six entries before: five "must be equal to constant" and "must match a schema in anyOf".
    const query = await t.app.inject({ method: 'GET', url: '/api/faq/paginated?reviewStatus=nope', headers: admin.headers });
    expect(errorsOf(query)).toEqual([
      { path: 'query.reviewStatus', message: 'must be one of: approved, pending_review, draft, verified, update_requested' },
    ]);
    expect(query.json().detail).toBe('query.reviewStatus must be one of: approved, pending_review, draft, verified, update_requested');
    // Not a string at all: the type errors of each branch fold in too.
    for (const reviewStatus of [12, null, 'nope']) {
      const body = await t.app.inject({
        method: 'POST',
        url: '/api/faq',
        headers: admin.headers,
        payload: { question: 'What is a union?', answer: 'One of a few.', reviewStatus },
      });
      expect(errorsOf(body), String(reviewStatus)).toEqual([{ path: 'body.reviewStatus', message: 'must be one of: approved, draft' }]);
    }
    // A flag of a query string: one error (it was three, none naming what is allowed).
    const flag = await t.app.inject({ method: 'POST', url: '/api/admin/community/auto-answer?dry_run=maybe', headers: admin.headers });
    expect(errorsOf(flag)).toEqual([{ path: 'query.dry_run', message: 'must be boolean' }]);
    const nested = await t.app.inject({ method: 'POST', url: '/api/log', payload: { entries: [{ level: 'loud', message: 'x' }] } });
    expect(errorsOf(nested).filter((e) => e.path === 'body.entries.0.level')).toEqual([
      { path: 'body.entries.0.level', message: 'must be one of: debug, info, warn, error' },
    ]);
  });

  it('lists null for a nullable one, and leaves a union of other schemas as Ajv reports it', async () => {
    const app = Fastify({ ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: false } } });
    await app.register(problemPlugin);
    const Tier = T.Union([T.Literal('evergreen'), T.Literal('seasonal')]);
    app.post(
      '/x',
      {
        schema: {
          body: T.Object({ tier: T.Optional(T.Union([Tier, T.Null()])), limit: T.Optional(T.Union([T.Literal('all'), T.Integer()])) }),
        },
      },
      async () => ({}),
    );
    try {
      const nullable = await app.inject({ method: 'POST', url: '/x', payload: { tier: 'annual' } });
      expect(errorsOf(nullable)).toEqual([{ path: 'body.tier', message: 'must be one of: evergreen, seasonal, null' }]);
      const mixed = await app.inject({ method: 'POST', url: '/x', payload: { limit: 'some' } });
      expect(errorsOf(mixed).map((e) => e.message)).toContain('must match a schema in anyOf');
    } finally {
      await app.close();
    }
  });

  it('names only what a nullable field of another kind needs, once (not also "must be null" and "must match a schema in anyOf")', async () => {
    const app = Fastify({ ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: false } } });
    await app.register(problemPlugin);
    const Settings = T.Object({ color: T.String({ pattern: '^#[0-9a-f]{6}$' }) }, { additionalProperties: false });
    app.post(
      '/x',
      {
        schema: {
          body: T.Object({
            url: T.Optional(T.Union([T.String({ pattern: '^https?://' }), T.Null()])),
            day: T.Optional(T.Union([T.String({ format: 'date' }), T.Null()])),
            settings: T.Optional(T.Union([Settings, T.Null()])),
          }),
        },
      },
      async () => ({}),
    );
    try {
      const url = await app.inject({ method: 'POST', url: '/x', payload: { url: 'ftp://x' } });
      expect(errorsOf(url)).toEqual([{ path: 'body.url', message: 'must match pattern "^https?://"' }]);
      const wrongType = await app.inject({ method: 'POST', url: '/x', payload: { url: { href: 'x' } } });
      expect(errorsOf(wrongType)).toEqual([{ path: 'body.url', message: 'must be string or null' }]);
      const day = await app.inject({ method: 'POST', url: '/x', payload: { day: '2026-02-30' } });
      expect(errorsOf(day)).toEqual([{ path: 'body.day', message: 'must match format "date"' }]);
      const nested = await app.inject({ method: 'POST', url: '/x', payload: { settings: { color: 'red' } } });
      expect(errorsOf(nested)).toEqual([{ path: 'body.settings.color', message: 'must match pattern "^#[0-9a-f]{6}$"' }]);
      expect((await app.inject({ method: 'POST', url: '/x', payload: { url: null, day: null, settings: null } })).statusCode).toBe(200);
      // The routes' own nullable fields: one entry each.
      const program = await t.app.inject({
        method: 'POST',
        url: '/api/batches',
        headers: admin.headers,
        payload: { name: 'Dates', startDate: '2026-02-30' },
      });
      expect(errorsOf(program).map((e) => e.path)).toEqual(['body.startDate']);
      const profile = await t.app.inject({ method: 'PATCH', url: '/api/auth/profile', headers: admin.headers, payload: { bio: 5 } });
      expect(errorsOf(profile).map((e) => e.path)).toEqual(['body.bio']);
    } finally {
      await app.close();
    }
  });
});

describe('an empty JSON body is no body', () => {
  const json = { 'content-type': 'application/json' };
  it('lets body-less routes run and names `body` where one is needed; other bodies parse as before', async () => {
    // Clients that send content-type: application/json on every request call body-less routes that way.
    for (const payload of ['', '  \n']) {
      const vote = await t.app.inject({
        method: 'POST',
        url: `/api/community/posts/${postId}/upvote`,
        headers: { ...admin.headers, ...json },
        payload,
      });
      expect(vote.statusCode, JSON.stringify(payload)).toBe(200);
      expect(vote.json()).toMatchObject({ upvotes: 1, myVote: 1 });
      await t.app.inject({ method: 'POST', url: `/api/community/posts/${postId}/upvote`, headers: admin.headers });
    }
    const post = await t.app.inject({ method: 'POST', url: '/api/community/posts', headers: { ...user.headers, ...json }, payload: '' });
    expect(fieldOf(post)).toBe('body');
    expectProblem(await t.app.inject({ method: 'POST', url: '/api/search', headers: json, payload: '{"query": ' }), 400, 'INVALID_JSON');
    // Fastify's own parser still refuses prototype poisoning, named as the field it is (the JSON is valid).
    for (const payload of ['{"__proto__": {"x": 1}, "query": "a"}', '{"query": "a", "x": {"constructor": {"prototype": {"y": 1}}}}']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/search', headers: json, payload });
      expect(fieldOf(res), payload).toBe('body');
      expect(JSON.stringify(res.json())).toContain('__proto__');
    }
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/search',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          payload: '{"query": "how do I renew"}',
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('a write that takes no body refuses one', () => {
  it('names the field it was sent (an upvote with {"value": -1} upvoted); `{}` and no body still run', async () => {
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/community/posts/${postId}/upvote`,
      headers: admin.headers,
      payload: { value: -1 },
    });
    expectProblem(sent, 400, 'VALIDATION_FAILED');
    expect(fieldOf(sent)).toBe('body.value');
    const readAll = await t.app.inject({
      method: 'PUT',
      url: '/api/notifications/read-all',
      headers: user.headers,
      payload: { batchId: 'x' },
    });
    expect(fieldOf(readAll)).toBe('body.batchId');
    const empty = await t.app.inject({ method: 'POST', url: `/api/community/posts/${postId}/upvote`, headers: admin.headers, payload: {} });
    expect(empty.statusCode).toBe(200);
    const none = await t.app.inject({ method: 'POST', url: `/api/community/posts/${postId}/upvote`, headers: admin.headers });
    expect(none.statusCode).toBe(200);
  });
});

describe('a body of one of several object forms is named against the form it has the keys of', () => {
  const errorsOf = (res: Parameters<typeof expectProblem>[0]) => expectProblem(res, 400, 'VALIDATION_FAILED').errors ?? [];

  it('a batch with several bad entries names the entries, not the single-entry form', async () => {
    // Two bad entries are more errors than the single-entry reading (level, message, entries unknown),
    // yet the body has the batch's key: it was read as an entry before.
    const batch = await t.app.inject({ method: 'POST', url: '/api/log', payload: { entries: [{}, {}] } });
    expect(errorsOf(batch)).toEqual([
      { path: 'body.entries.0.level', message: 'is required' },
      { path: 'body.entries.0.message', message: 'is required' },
      { path: 'body.entries.1.level', message: 'is required' },
      { path: 'body.entries.1.message', message: 'is required' },
    ]);
    const mixed = await t.app.inject({
      method: 'POST',
      url: '/api/log',
      payload: { entries: [{ level: 'info', message: 'ok' }, { level: 'loud', message: '' }, { message: 'x' }] },
    });
    expect(errorsOf(mixed).map((e) => e.path)).toEqual(['body.entries.1.level', 'body.entries.1.message', 'body.entries.2.level']);
    // A single entry is still named as one, and a body of neither form by the fewest errors.
    const single = await t.app.inject({ method: 'POST', url: '/api/log', payload: { level: 'fatal', message: 'x' } });
    expect(errorsOf(single)).toEqual([{ path: 'body.level', message: 'must be one of: debug, info, warn, error' }]);
    const partial = await t.app.inject({ method: 'POST', url: '/api/log', payload: { level: 'info' } });
    expect(errorsOf(partial)).toEqual([{ path: 'body.message', message: 'is required' }]);
  });
});

describe('a body whose fields are all optional may be left out', () => {
  const MISSING = '00000000-0000-4000-8000-000000000000';

  it('reads no body, or an empty JSON one, as {} on a route whose body schema requires nothing', async () => {
    for (const payload of [undefined, '']) {
      const post = await t.app.inject({
        method: 'POST',
        url: '/api/community/posts',
        headers: user.headers,
        payload: { title: `Optional body ${JSON.stringify(payload)}?`, body: 'A body' },
      });
      const id = post.json().id as string;
      const comment = await t.app.inject({
        method: 'POST',
        url: `/api/community/posts/${id}/comments`,
        headers: admin.headers,
        payload: { body: 'The accepted answer.' },
      });
      await t.app.inject({ method: 'PUT', url: `/api/community/posts/${id}/comments/${comment.json().id}/accept`, headers: user.headers });
      const headers = payload === undefined ? admin.headers : { ...admin.headers, 'content-type': 'application/json' };
      const res = await t.app.inject({ method: 'POST', url: `/api/community/posts/${id}/convert`, headers, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(201);
      expect(res.json()).toMatchObject({ faq: { answer: 'The accepted answer.' }, post: { convertedFaqId: expect.any(String) } });
    }
  });

  it('runs every such route without a body (404 for an unknown id, not 400), and still refuses a null body', async () => {
    const routes: InjectOptions[] = [
      { method: 'POST', url: `/api/community/posts/${MISSING}/convert` },
      { method: 'POST', url: `/api/conf/insights/${MISSING}/convert-to-faq` },
      { method: 'PUT', url: `/api/knowledge/${MISSING}/promote` },
      { method: 'POST', url: `/api/search/unresolved/${MISSING}/resolve` },
      { method: 'POST', url: `/api/admin/escalated/${MISSING}/resolve` },
      { method: 'POST', url: `/api/admin/community/escalated-posts/${MISSING}/resolve` },
    ];
    for (const route of routes) {
      const res = await t.app.inject({ ...route, headers: admin.headers });
      expect(res.statusCode, `${route.method} ${route.url}: ${res.body}`).toBe(404);
    }
    const nul = await t.app.inject({
      method: 'POST',
      url: `/api/community/posts/${MISSING}/convert`,
      headers: { ...admin.headers, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(fieldOf(nul)).toBe('body');
  });

  it('still answers 400 naming `body` where the body schema has a required property', async () => {
    expect(fieldOf(await t.app.inject({ method: 'POST', url: '/api/faq', headers: admin.headers }))).toBe('body');
    expect(fieldOf(await t.app.inject({ method: 'POST', url: `/api/community/posts/${postId}/comments`, headers: user.headers }))).toBe(
      'body',
    );
  });
});
