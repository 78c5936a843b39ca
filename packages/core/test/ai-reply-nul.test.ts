import { createTestContext, type FakeAiServer, fakeProviderEnv, openaiAdapter, startFakeAiServer, type TestContext } from '@cfaq/testkit';
import { Type as T } from '@sinclair/typebox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateStructured } from '../src/ai/generate.js';
import { storableText as fromRecording } from '../src/conf/recording.js';
import type { Config } from '../src/config/schema.js';
import type { CoreContext } from '../src/context.js';
import { fixedClock } from '../src/runtime/clock.js';
import { BLANK_CLASS, hasVisibleText, storableText, storableValue } from '../src/shared/text.js';

/**
 * What a provider's reply may hold that PostgreSQL cannot store (a NUL: text and jsonb refuse it,
 * 22P05; a lone surrogate half) is cleaned where generateStructured reads the reply, so every pipeline
 * gets storable strings; and the one definition of visible text (shared/text.ts).
 */

describe('hasVisibleText: white space and zero-width format characters are blank', () => {
  it.each([
    ['', false],
    ['   \n\t', false],
    ['\u200b\u200b\u200b', false],
    ['\u200c\u200d\u200e\u200f\u2060\ufeff \u00a0', false],
    // the other characters that show nothing alone: soft hyphen, invisible operators, Hangul fillers,
    // variation selectors, bidi embeddings and isolates, combining grapheme joiner, Mongolian separator
    ['\u00ad\u2061\u2062\u2063\u2064\u3164\u115f\u1160\uffa0', false],
    ['\ufe0f\ufe00\u202a\u202e\u2066\u2069\u206a\u206f\u034f\u061c\u180e\u17b4\ufff0\ufff8', false],
    ['\u00adx', true],
    ['\u{1F44D}\ufe0f', true],
    ['e\u0301', true],
    ['\u200b a', true],
    ['a', true],
    ['\u0000', true],
  ])('%j -> %s', (s, visible) => expect(hasVisibleText(s)).toBe(visible));

  it('null and undefined have none', () => {
    expect(hasVisibleText(undefined)).toBe(false);
    expect(hasVisibleText(null)).toBe(false);
  });

  it('BLANK_CLASS is the character class the API builds its patterns from', () => {
    expect(new RegExp(`^[${BLANK_CLASS}]*$`).test('\u200b \ufeff')).toBe(true);
    expect(new RegExp(`^[${BLANK_CLASS}]*$`).test('\u200bx')).toBe(false);
  });
});

describe('storableText and storableValue', () => {
  it('drop NULs and replace lone surrogate halves, keep pairs; recording.ts uses the same function', () => {
    expect(storableText('a\u0000b\ud800c\udc00d\ud83d\ude00')).toBe('ab\ufffdc\ufffdd\ud83d\ude00');
    expect(fromRecording).toBe(storableText);
  });

  it('clean every string of a JSON value, keys too; other values unchanged', () => {
    expect(storableValue({ 'k\u0000': ['x\u0000', 1, true, null, { y: 'z\ud800' }], n: 2 })).toEqual({
      k: ['x', 1, true, null, { y: 'z\ufffd' }],
      n: 2,
    });
  });
});

const Reply = T.Object({
  answer: T.String({ minLength: 1 }),
  sources: T.Array(T.String()),
  meta: T.Object({ note: T.String() }),
});
let t: TestContext;
let fake: FakeAiServer;
/** Appended to every error message the fake sends: a provider error body quoting a NUL. */
let errorTail = '';

beforeAll(async () => {
  t = await createTestContext({ clock: fixedClock('2026-06-01T12:00:00Z') });
  fake = await startFakeAiServer({ ...openaiAdapter, error: (status, message) => openaiAdapter.error(status, `${message}${errorTail}`) });
});
afterAll(async () => {
  await fake.close();
  await t.close();
});
beforeEach(() => {
  errorTail = '';
  fake.calls.length = 0;
});

const ctx = (): CoreContext => ({
  ...t.ctx,
  config: {
    ...t.ctx.config,
    ANTHROPIC_API_KEY: undefined,
    GEMINI_API_KEY: undefined,
    OLLAMA_HOST: undefined,
    ...fakeProviderEnv('openai', fake),
    AI_RETRY_BASE_MS: 1,
    AI_MAX_RETRIES: 1,
  } as Config,
});
const req = { pipeline: 'auto_answer' as const, batchId: null, schema: Reply, system: 'You answer.', prompt: 'How?' };

describe('generateStructured returns storable strings', () => {
  it('a NUL and a lone surrogate in the reply: cleaned in the value (nested strings too), before the check sees it', async () => {
    fake.reply = () => ({ answer: 'Use the\u0000 reset link.', sources: ['k\u0000-1'], meta: { note: 'half \ud800 pair' } });
    const seen: string[] = [];
    const r = await generateStructured(ctx(), {
      ...req,
      check: (v) => {
        seen.push(v.answer);
        return null;
      },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({ answer: 'Use the reset link.', sources: ['k-1'], meta: { note: 'half \ufffd pair' } });
    expect(seen).toEqual(['Use the reset link.']);
    // Stored as jsonb, it is accepted.
    await expect(t.ctx.pool.query('select $1::jsonb', [JSON.stringify(r.value)])).resolves.toBeDefined();
  });

  it('an answer of only NULs is no answer: schema-invalid (minLength), a failed attempt', async () => {
    fake.reply = () => ({ answer: '\u0000\u0000', sources: [], meta: { note: '' } });
    const r = await generateStructured(ctx(), req);
    expect(r).toMatchObject({ ok: false, outcome: 'failed', failure: 'malformed' });
  });

  it('a provider error quoting a NUL: the failure reason (stored by the pipelines) has none', async () => {
    errorTail = ' near \u0000 here';
    fake.failNext(400);
    const r = await generateStructured(ctx(), req);
    expect(r).toMatchObject({ ok: false, outcome: 'failed', failure: 'http_error' });
    if (r.ok) return;
    expect(r.reason).toContain('near  here');
    expect(r.reason).not.toContain('\u0000');
  });
});
