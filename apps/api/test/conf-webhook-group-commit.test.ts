import { BossJobQueue, derivedJobId, ensureQueues, JOBS } from '@cfaq/core';
import { signConfWebhook, startTestBoss } from '@cfaq/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createTestApp, expectProblem, type TestApp } from './helpers.js';

// The webhook's job INSERTs are group-committed (JOB_SEND_BATCH_MAX): concurrent acknowledgements share
// one INSERT and commit, and each 200 still means its own job is committed (DESIGN.md section 4).
const SECRET = 'whsec-group-commit';
let t: TestApp;
let boss: Awaited<ReturnType<typeof startTestBoss>>;
let app: Awaited<ReturnType<typeof buildApp>>;
/** Job ids of every INSERT that has committed, in order, and how many INSERTs ran. */
const committed: string[] = [];
let inserts = 0;

const event = (uuid: string, topic = 'Group commit') => ({
  event: 'recording.transcript_completed',
  event_ts: Date.now(),
  payload: { object: { uuid, id: 7, host_id: 'zm-gc', topic, recording_files: [] } },
});
const jobIdOf = (uuid: string) => derivedJobId(`conf-ingest:recording.transcript_completed:${uuid}`);
function post(body: unknown) {
  const raw = JSON.stringify(body);
  return app.inject({ method: 'POST', url: '/api/conf/webhook', payload: raw, headers: signConfWebhook(SECRET, raw) });
}
const jobRows = async (uuid: string) =>
  (
    await t.ctx.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'conf.ingest-recording' AND data->>'meetingUuid' = $1`,
      [uuid],
    )
  ).rows[0]?.n;

beforeAll(async () => {
  t = await createTestApp({ env: { CONF_WEBHOOK_SECRET_TOKEN: SECRET } });
  boss = await startTestBoss(t.url);
  await ensureQueues(boss, JOBS);
  const insert = boss.insert.bind(boss);
  boss.insert = async (name, jobs, options) => {
    inserts++;
    const ids = await insert(name, jobs, options);
    committed.push(...(ids ?? []));
    return ids;
  };
  app = await buildApp({ ctx: { ...t.ctx, jobs: new BossJobQueue(boss, { batchMax: 50 }) }, logger: false });
  await app.ready();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
});

describe('webhook acknowledgements with group commit', () => {
  it('twenty concurrent events share INSERTs, and each 200 comes after the commit of its own job', async () => {
    const before = inserts;
    const uuids = Array.from({ length: 20 }, (_, i) => `gc-${i}`);
    const answers = await Promise.all(
      uuids.map(async (uuid) => {
        const res = await post(event(uuid));
        // At the moment this answer arrived, the INSERT holding its job had committed.
        return { status: res.statusCode, body: res.json(), committed: committed.includes(jobIdOf(uuid)) };
      }),
    );
    expect(answers).toEqual(uuids.map(() => ({ status: 200, body: { received: true }, committed: true })));
    expect(inserts - before).toBeLessThan(uuids.length);
    for (const uuid of uuids) expect(await jobRows(uuid)).toBe(1);
  });

  it('an event whose strings PostgreSQL cannot store (NUL, a lone surrogate) is stored cleaned, and fails no other event', async () => {
    const bad = [event('gc-nul', 'Intro\u0000 nul'), event('gc-surrogate', 'Lone \ud800 half'), event('gc-\u0000uuid')];
    const good = Array.from({ length: 12 }, (_, i) => event(`gc-ok-${i}`));
    const answers = await Promise.all([...bad, ...good].map((b) => post(b)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(15).fill(200));
    const topics = await t.ctx.pool.query<{ topic: string }>(
      `SELECT data->>'topic' AS topic FROM pgboss.job WHERE name = 'conf.ingest-recording' AND data->>'meetingUuid' IN ('gc-nul', 'gc-surrogate')`,
    );
    expect(topics.rows.map((r) => r.topic).sort()).toEqual(['Intro nul', 'Lone \uFFFD half']);
    expect(await jobRows('gc-uuid')).toBe(1);
  });

  it('ten concurrent deliveries of one event are all acknowledged and leave one job', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(event('gc-same'))));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(await jobRows('gc-same')).toBe(1);
  });

  it('a database failure of the shared INSERT answers 503 to every request of the batch, and nothing is stored', async () => {
    // A real failure of the statement: the database refuses these rows.
    await t.ctx.pool.query(`ALTER TABLE pgboss.job ADD CONSTRAINT gc_refuse CHECK (data->>'topic' <> 'refused')`);
    try {
      const uuids = Array.from({ length: 5 }, (_, i) => `gc-down-${i}`);
      const answers = await Promise.all(uuids.map((uuid) => post(event(uuid, 'refused'))));
      for (const res of answers) expectProblem(res, 503, 'QUEUE_UNAVAILABLE');
      for (const uuid of uuids) expect(await jobRows(uuid)).toBe(0);
    } finally {
      await t.ctx.pool.query('ALTER TABLE pgboss.job DROP CONSTRAINT gc_refuse');
    }
    expect((await post(event('gc-after'))).statusCode).toBe(200);
  });
});
