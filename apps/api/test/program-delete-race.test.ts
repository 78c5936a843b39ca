import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  expectProblem,
  GENEROUS_LIMITS,
  type TestApp,
  VALID_PROGRAM_SETTINGS,
  lockWaiters as waitForLocks,
} from './helpers.js';

// A write racing a program's delete either lands before it (and answers 2xx) or gets 404 and writes
// nothing: it never answers 404 for content it saved, and a deleted program takes no new content.
// The races are made deterministic with locks: a delete held open from a second connection, or a
// write held (by an advisory lock in a trigger) after it took its program lock.
type Who = { headers: { authorization: string }; id: string };
let t: TestApp;
let admin: Who;
const PAUSE_KEY = 7_311_042;

beforeAll(async () => {
  t = await createTestApp({ env: GENEROUS_LIMITS });
  admin = await t.signIn('admin');
  // A row marked 'paused' waits, inside its write's transaction, for the advisory lock the test holds.
  await t.ctx.pool.query(`
    CREATE FUNCTION test_pause_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF to_jsonb(NEW) ->> TG_ARGV[0] = 'paused' THEN PERFORM pg_advisory_xact_lock(${PAUSE_KEY}); END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_pause_write BEFORE INSERT ON reputation_logs FOR EACH ROW EXECUTE FUNCTION test_pause_write('reason');
    CREATE TRIGGER test_pause_write BEFORE INSERT ON community_posts FOR EACH ROW EXECUTE FUNCTION test_pause_write('title');`);
});
afterAll(async () => {
  await t?.ctx.pool.query(
    `DROP TRIGGER test_pause_write ON reputation_logs; DROP TRIGGER test_pause_write ON community_posts; DROP FUNCTION test_pause_write();`,
  );
  await t?.close();
});

async function newProgram(name: string): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/batches', headers: admin.headers, payload: { name } });
  expect(res.statusCode).toBe(201);
  return (res.json() as { id: string }).id;
}

const post = (url: string, headers: Who['headers'], payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/${url}`, headers, payload });
const deleteProgram = (id: string) => t.app.inject({ method: 'DELETE', url: `/api/batches/${id}`, headers: admin.headers });
const count = async (sql: string, params: unknown[]) => Number((await t.ctx.pool.query<{ n: string }>(sql, params)).rows[0]?.n);

const lockWaiters = (n: number) => waitForLocks(t.ctx.pool, n);

/** The program's delete, as deleteProgram runs it (the row locked, then marked deleted), left open. */
async function openDelete(id: string): Promise<{ commit(): Promise<void> }> {
  const c: PoolClient = await t.ctx.pool.connect();
  await c.query('BEGIN');
  await c.query('SELECT 1 FROM batches WHERE id = $1 AND deleted_at IS NULL FOR UPDATE', [id]);
  await c.query('UPDATE batches SET deleted_at = now(), updated_at = now() WHERE id = $1', [id]);
  return {
    async commit() {
      await c.query('COMMIT');
      c.release();
    },
  };
}

/** Holds the advisory lock that paused writes wait for, until `release`. */
async function holdPause(): Promise<{ release(): Promise<void> }> {
  const c: PoolClient = await t.ctx.pool.connect();
  await c.query('SELECT pg_advisory_lock($1)', [PAUSE_KEY]);
  return {
    async release() {
      await c.query('SELECT pg_advisory_unlock($1)', [PAUSE_KEY]);
      c.release();
    },
  };
}

describe('a write that comes after the delete gets 404 and writes nothing', () => {
  it('points: the delete commits while the award waits for the program', async () => {
    const program = await newProgram('Race points after');
    const user = await t.signIn('user');
    const del = await openDelete(program);
    const award = post('reputation/points', admin.headers, { userId: user.id, points: 5, reason: 'x', batchId: program });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await award, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM reputation_logs WHERE user_id = $1', [user.id])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM notifications WHERE user_id = $1', [user.id])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM admin_logs WHERE target_id = $1::text`, [user.id])).toBe(0);
    expect(await count('SELECT reputation AS n FROM users WHERE id = $1', [user.id])).toBe(0);
  });

  it('badge issue: the delete commits while the issue waits for the program', async () => {
    const program = await newProgram('Race badge after');
    const user = await t.signIn('user');
    const del = await openDelete(program);
    const issue = post('reputation/badge/issue', admin.headers, { userId: user.id, name: 'mentor', reason: 'x', batchId: program });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await issue, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM badges WHERE user_id = $1', [user.id])).toBe(0);
  });

  it('post: the delete commits while the post waits for the program', async () => {
    const program = await newProgram('Race post after');
    const author = await t.signIn('user');
    const del = await openDelete(program);
    const created = post('community/posts', author.headers, {
      title: 'Where are the lockers?',
      body: 'Asking for a friend.',
      batchId: program,
    });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await created, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM community_posts WHERE author_id = $1', [author.id])).toBe(0);
  });

  it('FAQ create and suggestion: the delete commits while they wait for the program', async () => {
    const program = await newProgram('Race faq after');
    const user = await t.signIn('user');
    const del = await openDelete(program);
    const created = post('faq', admin.headers, { question: 'Where are the lockers?', answer: 'By the lab.', batchId: program });
    const suggested = post('faq/suggest', user.headers, { question: 'Where is the printer?', batchId: program });
    expect(await lockWaiters(2)).toBe(true);
    await del.commit();
    expectProblem(await created, 404, 'PROGRAM_NOT_FOUND');
    expectProblem(await suggested, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM faqs WHERE batch_id = $1', [program])).toBe(0);
  });

  it('transcript upload: the delete commits while the upload waits for the program', async () => {
    const program = await newProgram('Race upload after');
    const del = await openDelete(program);
    const upload = post('conf/upload-transcript', admin.headers, {
      rawText: 'Dana: The locker keys are handed out at the front desk on Mondays.',
      source: 'manual_raw',
      topic: 'Race upload',
      batchId: program,
    });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await upload, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM conf_meetings WHERE batch_id = $1', [program])).toBe(0);
  });

  it('transcript upload: the delete commits while the upload stores (after its meeting was saved)', async () => {
    const program = await newProgram('Race upload storing');
    // The store reads the program's FAQs (its "update FAQ X" proposals) before it locks the program
    // again: a lock on the faqs table holds it there, with the meeting row committed.
    const faqLock: PoolClient = await t.ctx.pool.connect();
    await faqLock.query('BEGIN');
    await faqLock.query('LOCK TABLE faqs IN ACCESS EXCLUSIVE MODE');
    const upload = post('conf/upload-transcript', admin.headers, {
      rawText: 'Dana: The locker keys are handed out at the front desk on Mondays.',
      source: 'manual_raw',
      topic: 'Race upload storing',
      batchId: program,
    });
    let held = false;
    for (let i = 0; i < 1000 && !held; i += 1) {
      held =
        (await count('SELECT count(*) AS n FROM conf_meetings WHERE batch_id = $1', [program])) === 1 &&
        (await count(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%faqs%'`,
          [],
        )) >= 1;
      if (!held) await new Promise((r) => setTimeout(r, 10));
    }
    const meetingId = (await t.ctx.pool.query<{ id: string }>('SELECT id FROM conf_meetings WHERE batch_id = $1', [program])).rows[0]?.id;
    const del = await openDelete(program);
    await del.commit();
    await faqLock.query('ROLLBACK');
    faqLock.release();
    expect(held).toBe(true);
    expectProblem(await upload, 404, 'PROGRAM_NOT_FOUND');
    // "Writes nothing": the meeting saved before the delete is gone with the upload, and nothing hangs off it.
    expect(await count('SELECT count(*) AS n FROM conf_meetings WHERE batch_id = $1', [program])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM transcript_knowledge WHERE batch_id = $1', [program])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM conf_insights WHERE batch_id = $1', [program])).toBe(0);
    expectProblem(
      await t.app.inject({ method: 'GET', url: `/api/conf/meetings/${meetingId}`, headers: admin.headers }),
      404,
      'MEETING_NOT_FOUND',
    );
  });

  it("a deleted program's meeting is 404 by id, as it is gone from the list", async () => {
    const program = await newProgram('Race meeting read');
    const upload = await post('conf/upload-transcript', admin.headers, {
      rawText: 'Dana: The locker keys are handed out at the front desk on Mondays.',
      source: 'manual_raw',
      topic: 'Meeting of a deleted program',
      batchId: program,
    });
    expect(upload.statusCode).toBe(201);
    const meetingId = (upload.json() as { meetingId: string }).meetingId;
    const read = () => t.app.inject({ method: 'GET', url: `/api/conf/meetings/${meetingId}`, headers: admin.headers });
    expect((await read()).statusCode).toBe(200);
    expect((await deleteProgram(program)).statusCode).toBe(204);
    expectProblem(await read(), 404, 'MEETING_NOT_FOUND');
  });

  it('knowledge ingest: the delete commits while the ingest waits for the program', async () => {
    const program = await newProgram('Race ingest after');
    const del = await openDelete(program);
    const ingest = post('knowledge/ingest', admin.headers, { title: 'Race guide', content: 'Lockers open at eight.', batchId: program });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await ingest, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM document_insights WHERE batch_id = $1', [program])).toBe(0);
  });

  it('settings: the delete commits while the settings write waits for the program', async () => {
    const program = await newProgram('Race settings after');
    const del = await openDelete(program);
    const put = t.app.inject({
      method: 'PUT',
      url: `/api/batches/${program}/settings`,
      headers: admin.headers,
      payload: VALID_PROGRAM_SETTINGS,
    });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await put, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM program_settings WHERE batch_id = $1', [program])).toBe(0);
    expect(
      await count(`SELECT count(*) AS n FROM admin_logs WHERE action = 'program.settings_updated' AND target_id = $1::text`, [program]),
    ).toBe(0);
  });

  it('unresolved search: the delete commits while the log waits for the program', async () => {
    const program = await newProgram('Race unresolved after');
    const del = await openDelete(program);
    const log = t.app.inject({
      method: 'POST',
      url: '/api/search/unresolved',
      payload: { query: 'where is the race locker?', batchId: program },
    });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await log, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM unresolved_searches WHERE batch_id = $1', [program])).toBe(0);
  });

  it('post to FAQ: the delete commits while the conversion waits for the program', async () => {
    const program = await newProgram('Race convert after');
    const author = await t.signIn('user');
    const created = await post('community/posts', author.headers, { title: 'When do lockers open?', body: 'Asking.', batchId: program });
    expect(created.statusCode).toBe(201);
    const postId = (created.json() as { id: string }).id;
    const del = await openDelete(program);
    const converted = post(`community/posts/${postId}/convert`, admin.headers, { answer: 'At eight.' });
    expect(await lockWaiters(1)).toBe(true);
    await del.commit();
    expectProblem(await converted, 404, 'PROGRAM_NOT_FOUND');
    expect(await count('SELECT count(*) AS n FROM faqs WHERE batch_id = $1', [program])).toBe(0);
  });

  it('a program already deleted takes nothing', async () => {
    const program = await newProgram('Race gone');
    const user = await t.signIn('user');
    expect((await deleteProgram(program)).statusCode).toBe(204);
    expectProblem(
      await post('reputation/points', admin.headers, { userId: user.id, points: 5, reason: 'x', batchId: program }),
      404,
      'PROGRAM_NOT_FOUND',
    );
    expectProblem(
      await post('community/posts', user.headers, { title: 'Too late', body: 'The program is gone.', batchId: program }),
      404,
      'PROGRAM_NOT_FOUND',
    );
    expect(await count('SELECT count(*) AS n FROM reputation_logs WHERE batch_id = $1', [program])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM community_posts WHERE batch_id = $1', [program])).toBe(0);
  });
});

describe('a write that locked the program first lands, and the delete waits for it', () => {
  it('points: the award answers with its summary and the delete completes after it', async () => {
    const program = await newProgram('Race points before');
    const user = await t.signIn('user');
    const pause = await holdPause();
    const award = post('reputation/points', admin.headers, { userId: user.id, points: 5, reason: 'paused', batchId: program });
    expect(await lockWaiters(1)).toBe(true); // the award waits in its insert, past its program lock
    const deleted = deleteProgram(program);
    const deleteBlocked = await lockWaiters(2);
    await pause.release();
    const [awarded, gone] = await Promise.all([award, deleted]);
    expect(deleteBlocked).toBe(true);
    expect(awarded.statusCode).toBe(200);
    expect(awarded.json()).toMatchObject({ userId: user.id, batchId: program, points: 5, totalReputation: 5 });
    expect(gone.statusCode).toBe(204);
    expect(await count('SELECT count(*) AS n FROM reputation_logs WHERE user_id = $1 AND batch_id = $2', [user.id, program])).toBe(1);
  });

  it('post: the post answers 201 and the delete completes after it', async () => {
    const program = await newProgram('Race post before');
    const author = await t.signIn('user');
    const pause = await holdPause();
    const created = post('community/posts', author.headers, { title: 'paused', body: 'Written before the delete.', batchId: program });
    expect(await lockWaiters(1)).toBe(true);
    const deleted = deleteProgram(program);
    const deleteBlocked = await lockWaiters(2);
    await pause.release();
    const [res, gone] = await Promise.all([created, deleted]);
    expect(deleteBlocked).toBe(true);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ title: 'paused', batchId: program });
    expect(gone.statusCode).toBe(204);
    expect(await count('SELECT count(*) AS n FROM community_posts WHERE author_id = $1 AND batch_id = $2', [author.id, program])).toBe(1);
  });
});
