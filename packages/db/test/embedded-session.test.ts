import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { embeddedDatabaseDir } from '@cfaq/testkit';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../src/client.js';
import { type EmbeddedDatabase, openEmbeddedDatabase } from '../src/embedded.js';
import { MIGRATIONS_FOLDER, runMigrations } from '../src/migrate.js';

/** The embedded database's socket server: many pool connections, one PGlite session. */
let dir: string;
let embedded: EmbeddedDatabase;
let pools: pg.Pool[] = [];

beforeAll(async () => {
  // A copy of a fresh (unmigrated) PGlite cluster: initdb in WebAssembly is the slow part, and not what this tests.
  dir = await embeddedDatabaseDir('bare');
  embedded = await openEmbeddedDatabase(dir);
  pools = [0, 1, 2].map(() => createPool({ connectionString: embedded.url, max: 8 }));
}, 180_000);

afterAll(async () => {
  for (const p of pools) await p.end();
  await embedded?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('embedded database socket server', () => {
  it('gives each connection its own results when extended-protocol queries interleave', async () => {
    const [a, b] = pools as [pg.Pool, pg.Pool];
    const values = Array.from({ length: 80 }, (_, i) => i);
    const rows = await Promise.all(
      values.map(async (i) => {
        // A different statement text each time: a Bind run against another connection's Parse shows.
        const res = await (i % 2 ? a : b).query<{ n: number; t: string; k: number }>(`select $1::int as n, $2::text as t, ${i} as k`, [
          i,
          `v${i}`,
        ]);
        return res.rows[0];
      }),
    );
    expect(rows).toEqual(values.map((i) => ({ n: i, t: `v${i}`, k: i })));
  });

  it('runs a transaction alone: concurrent read-modify-write transactions lose no update', async () => {
    const [a, b, c] = pools as [pg.Pool, pg.Pool, pg.Pool];
    await a.query('create table if not exists counter_probe (id int primary key, n int not null)');
    await a.query('insert into counter_probe values (1, 0) on conflict (id) do update set n = 0');
    // Plain queries on other connections keep arriving while the transactions run: a simple-query
    // BEGIN between another connection's Parse and Bind would drop its unnamed statement.
    const plain = Array.from({ length: 200 }, (_, i) =>
      (i % 2 ? a : b).query<{ k: number }>(`select ${i} as k, $1::int as n`, [i]).then((r) => r.rows[0]?.k),
    );
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        const client = await c.connect();
        try {
          await client.query('begin');
          const { rows } = await client.query<{ n: number }>('select n from counter_probe where id = $1 for update', [1]);
          await new Promise((r) => setTimeout(r, 2));
          await client.query('update counter_probe set n = $1 where id = $2', [(rows[0]?.n ?? 0) + 1, 1]);
          await client.query('commit');
        } finally {
          client.release();
        }
      }),
    );
    expect((await a.query('select n from counter_probe where id = 1')).rows[0].n).toBe(16);
    expect(await Promise.all(plain)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('rolls back the transaction of a connection that goes away, and serves the others', async () => {
    const [a] = pools as [pg.Pool];
    const client = await a.connect();
    await client.query('begin');
    await client.query('update counter_probe set n = -1 where id = 1');
    const waiting = a.query<{ n: number }>('select n from counter_probe where id = 1');
    client.release(true); // destroys the connection mid-transaction
    expect((await waiting).rows[0]?.n).toBe(16);
  });

  it('applies migrations once when several starters migrate at the same time', async () => {
    await Promise.all([runMigrations(pools[0] as pg.Pool), runMigrations(pools[1] as pg.Pool), runMigrations(pools[0] as pg.Pool)]);
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
    const { rows } = await (pools[1] as pg.Pool).query('select count(*)::int as n from drizzle.__drizzle_migrations');
    expect(rows[0].n).toBe(journal.entries.length);
    expect((await (pools[0] as pg.Pool).query('select count(*)::int as n from batches where is_default')).rows[0].n).toBe(1);
  }, 60_000);

  it('refuses COPY from the client or a program with an error, and ignores stray COPY messages, instead of wedging the session', async () => {
    const [a] = pools as [pg.Pool];
    await a.query('create table if not exists copy_probe (a text)');
    const wire = await rawConnection(embedded.url);
    try {
      // psql's \copy ... from: PGlite lost the protocol here and the whole instance hung, growing.
      const answer = await wire.query('copy copy_probe from stdin');
      expect(answer).toContain('0A000');
      expect(answer).toContain('COPY FROM STDIN, FROM PROGRAM and TO PROGRAM are not supported');
      // A comment between the keywords hides nothing; a string that mentions COPY is no COPY.
      expect(await wire.query('copy copy_probe from/**/stdin')).toContain('0A000');
      expect(await wire.query(`select 'how to copy rows from stdin in psql' as tip`)).toContain('how to copy rows from stdin in psql');
      // From or to a program: PGlite starts none, and waited forever.
      expect(await wire.query(`copy copy_probe from program 'true'`)).toContain('0A000');
      expect(await wire.query(`copy copy_probe to program 'cat'`)).toContain('0A000');
      // The same through the extended protocol: the error, the rest of the pipeline dropped, ReadyForQuery at Sync.
      const pipeline = await wire.extended('copy copy_probe from stdin');
      expect(pipeline).toContain('0A000');
      expect(pipeline.split('Z\u0000\u0000\u0000\u0005')).toHaveLength(2); // one ReadyForQuery
      // A CopyData and a CopyDone out of a COPY are ignored, as PostgreSQL does; the connection goes on.
      wire.send(message('d', Buffer.from('x\n')));
      wire.send(message('c', Buffer.alloc(0)));
      expect(await wire.query('select 41 + 1')).toContain('42');
    } finally {
      wire.close();
    }
    // Every other connection is served throughout.
    expect((await a.query<{ n: number }>('select count(*)::int as n from copy_probe')).rows[0]?.n).toBe(0);
  });
});

/** A typed frontend message: its type byte, its length (itself included) and the body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'ascii');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/**
 * A bare protocol connection (the pg client has no COPY): startup, then simple queries whose whole
 * answer up to ReadyForQuery comes back as text.
 */
async function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let buffered = Buffer.alloc(0);
  let waiter: (() => void) | null = null;
  socket.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    waiter?.();
  });
  /** Everything up to and including the next ReadyForQuery ('Z', length 5). */
  const untilReady = () =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no ReadyForQuery within 10 s')), 10_000);
      const check = () => {
        for (let i = 0; i + 5 < buffered.length; ) {
          const len = buffered.readInt32BE(i + 1);
          if (buffered[i] === 0x5a && len === 5 && i + 6 <= buffered.length) {
            const out = buffered.subarray(0, i + 6).toString('latin1');
            buffered = buffered.subarray(i + 6);
            clearTimeout(timer);
            waiter = null;
            resolve(out);
            return;
          }
          i += 1 + len;
        }
      };
      waiter = check;
      check();
    });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0', 'latin1');
  const startup = Buffer.alloc(8);
  startup.writeInt32BE(params.length + 8, 0);
  startup.writeInt32BE(196608, 4);
  socket.write(Buffer.concat([startup, params]));
  await untilReady();
  return {
    send: (bytes: Buffer) => socket.write(bytes),
    query: (sql: string) => {
      socket.write(message('Q', Buffer.from(`${sql}\0`, 'utf8')));
      return untilReady();
    },
    /** Parse, Bind, Execute and Sync of one statement without parameters. */
    extended: (sql: string) => {
      const none = Buffer.from([0, 0]);
      socket.write(
        Buffer.concat([
          message('P', Buffer.concat([Buffer.from(`\0${sql}\0`, 'utf8'), none])),
          message('B', Buffer.concat([Buffer.from('\0\0', 'latin1'), none, none, none])),
          message('E', Buffer.concat([Buffer.from('\0', 'latin1'), Buffer.alloc(4)])),
          message('S', Buffer.alloc(0)),
        ]),
      );
      return untilReady();
    },
    close: () => socket.destroy(),
  };
}
