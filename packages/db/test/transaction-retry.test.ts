import { cloneDatabase } from '@cfaq/testkit';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, createPool, pgErrorOf } from '../src/client.js';

let pool: pg.Pool;
let drop: () => Promise<void>;
beforeAll(async () => {
  const db = await cloneDatabase(inject('dbServerUrl'), inject('dbTemplate'), inject('dbPrefix'));
  drop = db.drop;
  pool = createPool({ connectionString: db.url, max: 4 });
  await pool.query('create table pair (id int primary key, n int not null default 0)');
  await pool.query('insert into pair (id) values (1), (2)');
});
afterAll(async () => {
  await pool.end();
  await drop();
});

/** Two transactions that lock rows 1 and 2 in opposite orders, each waiting until the other holds its first row. */
async function crossLocks(db: ReturnType<typeof createDb>) {
  let holding = 0;
  const bothHold = async () => {
    holding++;
    while (holding < 2) await new Promise((r) => setTimeout(r, 5));
  };
  let runs = 0;
  const side = (first: number, second: number) =>
    db.transaction(async (tx) => {
      runs++;
      await tx.execute(sql`update pair set n = n + 1 where id = ${first}`);
      await bothHold();
      await tx.execute(sql`update pair set n = n + 1 where id = ${second}`);
    });
  const results = await Promise.allSettled([side(1, 2), side(2, 1)]);
  return { results, runs };
}

describe('db.transaction', () => {
  it('runs a deadlock victim again, so both sides of a deadlock commit', async () => {
    const { results, runs } = await crossLocks(createDb(pool));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    // The victim ran again (at least twice in all: on a loaded machine its retry can meet the other side once more).
    expect(runs).toBeGreaterThanOrEqual(3);
    const rows = await pool.query<{ n: number }>('select n from pair order by id');
    expect(rows.rows.map((r) => r.n)).toEqual([2, 2]);
  });

  it('does not run again after any other error', async () => {
    const db = createDb(pool);
    let runs = 0;
    const failed = db.transaction(async (tx) => {
      runs++;
      await tx.execute(sql`insert into pair (id) values (1)`);
    });
    await expect(failed).rejects.toSatisfy((err) => pgErrorOf(err)?.code === '23505');
    expect(runs).toBe(1);
  });
});
