import { type CoreContext, createLogger, DEFAULT_POLICY, defineJob, type FetchedJob, runJobBatch } from '@cfaq/core';
import { Type as T } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';

const ctx = { log: createLogger({ level: 'silent' }) } as CoreContext;
const seen: number[] = [];
const job = defineJob({
  name: 'test.batch',
  payload: T.Object({ n: T.Integer({ minimum: 0 }) }),
  policy: DEFAULT_POLICY,
  handler: async (_ctx, p, meta) => {
    seen.push(p.n);
    if (p.n === 2) throw new Error('two fails');
    return { n: p.n, attempt: meta.retryCount };
  },
});
const fetched = (id: string, data: unknown, retryCount = 0): FetchedJob => ({ id, data, retryCount });

describe('runJobBatch', () => {
  it('checks each payload before its handler and fails only the jobs that break or throw', async () => {
    seen.length = 0;
    const failed: { id: string; message: string }[] = [];
    const batch = [fetched('a', { n: 1 }), fetched('b', { n: -1 }), fetched('c', { n: 2 }), fetched('d', { n: 3 }), fetched('e', null)];
    await runJobBatch(ctx, job, batch, async (j, error) => failed.push({ id: j.id, message: error.message }));
    expect(seen).toEqual([1, 2, 3]);
    expect(failed).toEqual([
      { id: 'b', message: expect.stringMatching(/^invalid payload for test\.batch: \/n /) },
      { id: 'c', message: 'two fails' },
      { id: 'e', message: expect.stringMatching(/^invalid payload for test\.batch: \/n /) },
    ]);
  });

  it("returns a one-job batch's result (stored as the job's output) and passes the attempt", async () => {
    const fail = async () => expect.unreachable('no job fails');
    expect(await runJobBatch(ctx, job, [fetched('x', { n: 5 }, 2)], fail)).toEqual({ n: 5, attempt: 2 });
    expect(await runJobBatch(ctx, job, [fetched('x', { n: 5 }), fetched('y', { n: 6 })], fail)).toBeUndefined();
  });

  it("hands the job's abort signal (pg-boss aborts it when the worker stops) to the handler", async () => {
    let got: AbortSignal | undefined;
    const listening = defineJob({
      name: 'test.signal',
      payload: T.Object({}),
      policy: DEFAULT_POLICY,
      handler: async (_ctx, _p, meta) => {
        got = meta.signal;
      },
    });
    const stop = new AbortController();
    await runJobBatch(ctx, listening, [{ id: 's', data: {}, retryCount: 0, signal: stop.signal }], async () => expect.unreachable());
    expect(got).toBe(stop.signal);
  });
});
