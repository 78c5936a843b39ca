import { readFileSync, rmSync } from 'node:fs';
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
});
