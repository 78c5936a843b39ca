import { createTestContext, type TestContext } from '@cfaq/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The search cache's generation row is moved by every write that can change a search answer. It is
 * bumped at commit (deferred triggers, migration 0018), so content writes never hold it while they
 * wait for another row: it cannot take part in a deadlock, and it moves exactly when the write becomes
 * visible.
 */
let t: TestContext;
const clients: pg.Client[] = [];
let programId = '';
let faqId = '';

async function client() {
  const c = new pg.Client({ connectionString: t.url });
  await c.connect();
  clients.push(c);
  return c;
}
const generation = async (c: pg.Client) =>
  Number((await c.query<{ value: string }>('select value::text as value from search_cache_generation where id = 1')).rows[0]?.value);

beforeAll(async () => {
  t = await createTestContext();
  const c = await client();
  programId = (await c.query<{ id: string }>(`insert into batches (name, slug) values ('Race', 'race-${Date.now()}') returning id`))
    .rows[0]!.id;
  faqId = (await c.query<{ id: string }>(`insert into faqs (batch_id, question, answer) values ($1, 'Q?', 'A.') returning id`, [programId]))
    .rows[0]!.id;
});
afterAll(async () => {
  for (const c of clients) await c.end();
  await t.close();
});

describe('search cache generation', () => {
  it('a FAQ edit and a program archive crossing on the same rows both commit (no deadlock on the generation row)', async () => {
    const [a, b, reader] = [await client(), await client(), await client()];
    const before = await generation(reader);
    await a.query('begin');
    await a.query(`update faqs set answer = 'A2.' where id = $1`, [faqId]);
    await b.query('begin');
    // b takes the program row; with a bump mid-transaction it then waited for a's generation lock.
    const bArchive = b.query('update batches set archived_at = now() where id = $1', [programId]).then(() => b.query('commit'));
    await new Promise((r) => setTimeout(r, 200));
    // a now wants the program row b holds: with the old triggers this closed the cycle (40P01).
    const aEdit = a.query(`update batches set description = 'edited' where id = $1`, [programId]).then(() => a.query('commit'));
    const results = await Promise.allSettled([bArchive, aEdit]);
    expect(results.map((r) => (r.status === 'rejected' ? String((r.reason as { code?: string }).code) : 'ok'))).toEqual(['ok', 'ok']);
    expect(await generation(reader)).toBe(before + 2);
  });

  it('moves once per transaction, only at its commit, and not at all on a rollback or an unrelated column', async () => {
    const [w, reader] = [await client(), await client()];
    const before = await generation(reader);
    await w.query('begin');
    for (let i = 0; i < 3; i += 1) await w.query(`update faqs set answer = $2 where id = $1`, [faqId, `A${i}`]);
    await w.query(`insert into faqs (batch_id, question, answer) values ($1, 'Q2?', 'A.')`, [programId]);
    expect(await generation(reader)).toBe(before);
    await w.query('commit');
    expect(await generation(reader)).toBe(before + 1);

    await w.query('begin');
    await w.query(`update faqs set answer = 'rolled back' where id = $1`, [faqId]);
    await w.query('rollback');
    await w.query('update faqs set view_count = view_count + 1 where id = $1', [faqId]);
    expect(await generation(reader)).toBe(before + 1);
  });

  it('many concurrent writers to different FAQs and programs never deadlock or fail', async () => {
    const writers = await Promise.all([1, 2, 3, 4].map(() => client()));
    const faqs = (
      await writers[0]!.query<{ id: string }>(
        `insert into faqs (batch_id, question, answer) select $1, 'Q' || g, 'A' from generate_series(1, 4) g returning id`,
        [programId],
      )
    ).rows.map((r) => r.id);
    const runs = writers.map(async (c, i) => {
      for (let round = 0; round < 10; round += 1) {
        await c.query('begin');
        // Each writer edits its FAQ and then the shared program row, in a different order every round.
        if ((round + i) % 2 === 0) {
          await c.query('update faqs set answer = $2 where id = $1', [faqs[i], `r${round}`]);
          await c.query('update batches set archived_at = case when archived_at is null then now() end where id = $1', [programId]);
        } else {
          await c.query('update batches set archived_at = case when archived_at is null then now() end where id = $1', [programId]);
          await c.query('update faqs set answer = $2 where id = $1', [faqs[i], `s${round}`]);
        }
        await c.query('commit');
      }
    });
    const results = await Promise.allSettled(runs);
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
  });
});
