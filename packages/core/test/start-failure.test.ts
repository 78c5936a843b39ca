import { type AddressInfo, createServer } from 'node:net';
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

describe('a DATABASE_URL whose TLS cannot be set up', () => {
  it('sslmode=require against a server without SSL is one line naming DATABASE_URL, without a stack', async () => {
    // A server that answers the SSL request as PostgreSQL without SSL does: 'N'.
    const server = createServer((socket) => socket.once('data', () => socket.end('N')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = new pg.Client({ connectionString: `postgres://u:secret-pass@127.0.0.1:${port}/x?sslmode=require` });
      const err = await client.connect().catch((e) => e);
      const text = startFailure('api', err);
      expect(text).toBe(
        'api failed to start: Invalid setting DATABASE_URL: the server does not support SSL connections: enable SSL on the server, or drop sslmode from the URL (sslmode=disable)',
      );
      expect(text).not.toContain('secret-pass');
    } finally {
      server.close();
    }
  });

  it("a certificate Node refuses is one line naming DATABASE_URL and Node's code", () => {
    const err = Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' });
    expect(startFailure('worker', err)).toBe(
      "worker failed to start: Invalid setting DATABASE_URL: the TLS connection to the server failed (SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain); check sslmode and the server's certificate",
    );
  });
});
