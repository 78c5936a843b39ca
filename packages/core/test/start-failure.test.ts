import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { startFailure } from '../src/runtime/main.js';

describe('why a process could not start', () => {
  it('a database without its tables names the command that creates them', () => {
    const err = Object.assign(new Error('Failed query: select "id" from "users"\nparams: admin@example.com,1'), {
      cause: Object.assign(new Error('relation "users" does not exist'), { code: '42P01' }),
    });
    const text = startFailure('api', err);
    expect(text).toMatch(/no tables yet.*npm run db:migrate.*MIGRATE_ON_START=true/);
    expect(text).not.toContain('admin@example.com');
  });

  it("any other error keeps its message and stack, without the statement's parameters", () => {
    const err = Object.assign(new Error('Failed query: insert into "users"\nparams: admin@example.com,$argon2id$secret'), {
      cause: Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }),
    });
    const text = startFailure('worker', err);
    expect(text).toMatch(/^worker failed to start: Error: Failed query: insert into "users"/);
    expect(text).toContain('caused by: connection refused');
    expect(text).not.toContain('admin@example.com');
    expect(text).not.toContain('argon2id');
  });

  it('a database it cannot reach or use is one line naming DATABASE_URL, without the URL', async () => {
    const refused = await new pg.Client({ connectionString: 'postgres://u:secret-pass@127.0.0.1:1/x' }).connect().catch((e) => e);
    expect(startFailure('api', refused)).toBe(
      'api failed to start: Invalid setting DATABASE_URL: cannot reach the database server (ECONNREFUSED)',
    );
    const server = new URL(inject('dbServerUrl'));
    server.pathname = '/cfaq_no_such_database';
    const missing = await new pg.Client({ connectionString: server.toString() }).connect().catch((e) => e);
    const text = startFailure('worker', missing);
    expect(text).toMatch(/^worker failed to start: Invalid setting DATABASE_URL: the database does not exist/);
    expect(text.split('\n')).toHaveLength(1);
  });
});
