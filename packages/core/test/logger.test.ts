import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { randomToken } from '../src/crypto/tokens.js';
import { hashPassword } from '../src/identity/password.js';
import { createLoggerOptions } from '../src/runtime/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { log: pino(createLoggerOptions({ level: 'info' }), stream), text: () => lines.join('') };
}

describe('logger redaction', () => {
  it('never writes authorization headers, passwords, tokens or keys', () => {
    const { log, text } = capture();
    log.info(
      {
        req: { headers: { authorization: 'Bearer eyJsecret', cookie: 'sid=abc' } },
        password: 'hunter2',
        body: { refreshToken: 'rt-secret', apiKey: 'sk-live-123', password: 'p@ss' },
        user: { totpSecret: 'JBSWY3DP', confAccessToken: 'zoom-at' },
      },
      'request',
    );
    const out = text();
    for (const secret of ['eyJsecret', 'sid=abc', 'hunter2', 'rt-secret', 'sk-live-123', 'p@ss', 'JBSWY3DP', 'zoom-at']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[redacted]');
  });

  it('censors a secret by its field name at any depth and in any case, and keeps counts named like one', () => {
    const { log, text } = capture();
    // The shape a client log (POST /log) takes: its context two levels down, names the paths do not list.
    log.error({
      frontend: {
        context: {
          password: 'hunter22',
          refreshToken: 'zzzzzzzzzzzz',
          nested: { clientSecret: 'shhh-secret-value', Password: 'Hunter33', client_secret: 'cs-123', Authorization: 'x1y2z3' },
        },
      },
      usage: { inputTokens: 120, outputTokens: 30 },
      tokens: ['tok-one-secret', 'tok-two-secret'],
      credentials: { pass: 'nested-pass-secret' },
    });
    const out = text();
    for (const secret of ['hunter22', 'zzzzzzzzzzzz', 'shhh-secret-value', 'Hunter33', 'cs-123', 'x1y2z3', 'tok-one', 'nested-pass']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('"inputTokens":120');
  });
});

describe('logger redaction by value', () => {
  const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA';
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlc2lnbmF0dXJl';

  it('redacts secret shapes in any field and in the message, whatever the field is called', () => {
    const { log, text } = capture();
    log.warn(
      { stored: hash, nested: { list: [`token was ${jwt}`] }, header: 'Bearer abcdefghijklmnop', note: 'key sk-proj-abcdefghijklmnop1234' },
      `login with ${jwt} and AIza${'x'.repeat(35)}`,
    );
    const out = text();
    for (const secret of [hash, jwt, 'abcdefghijklmnop', 'sk-proj-abcdefghijklmnop1234', `AIza${'x'.repeat(35)}`]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('token was [redacted]');
    expect(out).toContain('Bearer [redacted]');
  });

  it("redacts this service's refresh tokens by their shape, and leaves slugs, uuids and words of that length alone", () => {
    const { log, text } = capture();
    const tokens = Array.from({ length: 20 }, () => randomToken(32));
    const slug = 'how-to-renew-a-library-card-before-it-ends1';
    const id = '8f14e45f-ceea-467f-a9f0-5c6a6b7e1f3e';
    log.error({ context: { note: tokens[0] } }, `refresh failed for token ${tokens.slice(1).join(', ')}; ${slug} ${id}`);
    const out = text();
    for (const token of tokens) expect(out).not.toContain(token);
    expect(out).toContain(slug);
    expect(out).toContain(id);
  });

  it('redacts a refresh token that follows an escape (a URL quoted in a URL, a JSON \\u escape), and credentials of an encoded URL', () => {
    const { log, text } = capture();
    const tokens = Array.from({ length: 5 }, () => randomToken(32));
    const [a, b, c, d, e] = tokens as [string, string, string, string, string];
    log.error(
      { next: `/login?return=%2Fcb%3Frefresh_token%3D${a}%26x%3D1` },
      `client said: {"t":"\\u003d${b}"} \\x3d${c} %22${d}%22 ${encodeURIComponent(`token=${e}`)}`,
    );
    const out = text();
    for (const token of tokens) expect(out).not.toContain(token);
    // A credential parameter of a percent-encoded URL, whatever its value's shape; its neighbours stay.
    log.info({ next: '/login?return=%2Fcb%3Fpassword%3Dhunter2-secret%26page%3D2' }, 'redirect');
    expect(text()).not.toContain('hunter2-secret');
    expect(text()).toContain('%26page%3D2');
    // A URL fragment (OAuth's implicit flow) and a bare name=value in a message, for credential names;
    // an error's code= or a state= in prose stays.
    log.info('callback https://app.example/cb#access_token=at-secret-123&state=st-secret-456 done');
    log.info('retrying with password=pw-secret-789, client_secret="cs-secret-000" code=ECONNREFUSED state=open');
    for (const secret of ['at-secret-123', 'st-secret-456', 'pw-secret-789', 'cs-secret-000']) expect(text()).not.toContain(secret);
    expect(text()).toContain('code=ECONNREFUSED state=open');
    // A longer run after an escape is not a token: left alone.
    const longer = `%3D${'Ab'.repeat(22)}`;
    log.info(longer);
    expect(text()).toContain(longer);
  });

  it('redacts a refresh token glued to other base64url characters, and one used as a key', () => {
    const { log, text } = capture();
    const tokens = Array.from({ length: 4 }, () => randomToken(32));
    const [a, b, c, d] = tokens as [string, string, string, string];
    log.warn({ context: { a: `rt_${a}`, b: `${b}-x`, [d]: 1 } }, `glued x${c} end`);
    const out = text();
    for (const token of tokens) expect(out).not.toContain(token);
    // What is not a token stays: long slugs, hex digests, identifiers without digits.
    const kept = ['a-very-long-lower-case-slug-of-many-words-here-ok', 'f'.repeat(64), 'ThisIsAVeryLongComponentNameForTheDashboardViewX'];
    log.info({ kept }, kept.join(' '));
    for (const k of kept) expect(text()).toContain(k);
  });

  it('redacts a hash exactly as the service makes it (the argon2 package orders its parameters m,p,t)', async () => {
    const made = await hashPassword('hunter2-hunter2', {
      PASSWORD_HASH_MEMORY_KIB: 1024,
      PASSWORD_HASH_ITERATIONS: 1,
      PASSWORD_HASH_PARALLELISM: 1,
    });
    const { log, text } = capture();
    log.info({ row: { passwordHash: made } }, `stored ${made}`);
    const out = text();
    expect(out).not.toContain(made.split('$').pop() as string);
    expect(out).toContain('[redacted]');
  });

  it('logs a database error without its parameters, keeping the statement', () => {
    const { log, text } = capture();
    // The shape of drizzle's DrizzleQueryError: the parameters in a field and in the message.
    const err = Object.assign(
      new Error(`Failed query: insert into "users" ("email", "password_hash") values ($1, $2)\nparams: a@b.c,${hash}`),
      {
        query: 'insert into "users" ("email", "password_hash") values ($1, $2)',
        params: ['a@b.c', hash],
        cause: Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), { code: '23505' }),
      },
    );
    log.error({ err }, 'unhandled error');
    const out = text();
    expect(out).not.toContain(hash);
    expect(out).not.toContain('a@b.c');
    expect(out).toContain('insert into \\"users\\"');
    expect(out).toContain('users_email_key');
    expect(out).toContain('params: [redacted]');
  });
});

describe('logger redaction of query strings', () => {
  it('redacts credential-like parameters in any URL in a log line, by value', () => {
    const { log, text } = capture();
    log.info({ target: 'https://idp.example/cb?code=abc123&state=st456&next=/home' }, 'fetched /x?refreshToken=rt789&q=ok;api_key=k000');
    const out = text();
    for (const secret of ['abc123', 'st456', 'rt789', 'k000']) expect(out).not.toContain(secret);
    expect(out).toContain('next=/home');
    expect(out).toContain('q=ok');
  });
});
