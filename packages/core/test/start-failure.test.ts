import { describe, expect, it } from 'vitest';
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
});
