import { aiConfigs, aiUsage } from '@cfaq/db/schema/index';
import {
  createTestContext,
  type FakeAiProvider,
  type FakeAiServer,
  fakeProviderEnv,
  startFakeAnthropic,
  startFakeGemini,
  startFakeOllamaChat,
  startFakeOpenAI,
  type TestContext,
} from '@cfaq/testkit';
import { Type as T } from '@sinclair/typebox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateStructured } from '../src/ai/generate.js';
import { clientBaseUrl } from '../src/ai/providers.js';
import { type AiPipeline, keyAad, resolveAi } from '../src/ai/settings.js';
import type { Config } from '../src/config/schema.js';
import type { CoreContext } from '../src/context.js';
import { fixedClock } from '../src/runtime/clock.js';

const Answer = T.Object({ answer: T.String({ minLength: 1 }), confidence: T.Number({ minimum: 0, maximum: 1 }) });
const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, GEMINI_API_KEY: undefined, OLLAMA_HOST: undefined };

let t: TestContext;
const fakes: Record<string, FakeAiServer> = {};

beforeAll(async () => {
  t = await createTestContext({ clock: fixedClock('2026-06-01T12:00:00Z') });
  fakes.openai = await startFakeOpenAI();
  fakes.anthropic = await startFakeAnthropic();
  fakes.gemini = await startFakeGemini();
  fakes.ollama = await startFakeOllamaChat();
});
afterAll(async () => {
  await Promise.all(Object.values(fakes).map((f) => f.close()));
  await t.close();
});
beforeEach(async () => {
  await t.ctx.db.delete(aiUsage);
  await t.ctx.db.delete(aiConfigs);
  for (const f of Object.values(fakes)) {
    f.calls.length = 0;
    f.delayMs = 0;
    f.reply = () => ({ answer: 'Use the reset link on the login page.', confidence: 0.9 });
  }
});

function withEnv(env: Partial<Record<keyof Config, unknown>>): CoreContext {
  return { ...t.ctx, config: { ...t.ctx.config, ...NO_KEYS, AI_RETRY_BASE_MS: 1, AI_MAX_RETRIES: 2, ...env } as Config };
}
const envFor = (p: string): Partial<Record<keyof Config, unknown>> => fakeProviderEnv(p as FakeAiProvider, fakes[p] as FakeAiServer);
const req = {
  pipeline: 'auto_answer' as const,
  batchId: null,
  schema: Answer,
  system: 'You answer community questions.',
  prompt: 'How do I reset my password?',
};

describe('generateStructured against each provider fake', () => {
  for (const p of ['openai', 'anthropic', 'gemini', 'ollama'] as const) {
    it(`${p}: a structured, validated reply with usage recorded`, async () => {
      const ctx = withEnv(envFor(p));
      const r = await generateStructured(ctx, { ...req, maxOutputTokens: 200 });
      expect(r).toMatchObject({
        ok: true,
        provider: p,
        value: { answer: 'Use the reset link on the login page.', confidence: 0.9 },
        attempts: 1,
      });
      const f = fakes[p] as FakeAiServer;
      expect(f.calls).toHaveLength(1);
      const call = f.calls[0];
      expect(call?.prompt).toContain('How do I reset my password?');
      expect(call?.system).toContain('You answer community questions.');
      expect(call?.schema).toMatchObject({ type: 'object', properties: { answer: { type: 'string' }, confidence: { type: 'number' } } });
      expect(call?.maxOutputTokens).toBe(200);
      const rows = await t.ctx.db.select().from(aiUsage);
      expect(rows).toMatchObject([{ provider: p, pipeline: 'auto_answer', calls: 1, failures: 0, inputTokens: 11, outputTokens: 7 }]);
    });
  }

  it('openai: a base URL without a path gets /v1 (both APIs); one with a path is used as given', async () => {
    const f = fakes.openai as FakeAiServer;
    for (const url of [f.url, `${f.url}/`]) {
      expect(f.baseUrl).toBe(`${f.url}/v1`);
      for (const api of ['responses', 'chat'] as const) {
        const r = await generateStructured(withEnv({ OPENAI_API_KEY: f.apiKey, OPENAI_BASE_URL: url, OPENAI_API: api }), req);
        expect(r).toMatchObject({ ok: true, provider: 'openai' });
        expect(f.calls.at(-1)?.api).toBe(api);
      }
    }
    expect(clientBaseUrl('openai', 'https://api.openai.com')).toBe('https://api.openai.com/v1');
    expect(clientBaseUrl('openai', 'https://api.openai.com/v1/')).toBe('https://api.openai.com/v1');
    // An OpenAI-compatible server mounted under a path of its own keeps that path.
    expect(clientBaseUrl('openai', 'http://host/openai/v1')).toBe('http://host/openai/v1');
    expect(clientBaseUrl('openai', 'http://host/proxy/openai')).toBe('http://host/proxy/openai');
    // The others as before.
    expect(clientBaseUrl('anthropic', 'http://host')).toBe('http://host/v1');
    expect(clientBaseUrl('gemini', 'http://host/v1beta/')).toBe('http://host/v1beta');
    expect(clientBaseUrl('ollama', 'http://host:11434')).toBe('http://host:11434/api');
  });

  it('openai chat completions when OPENAI_API=chat', async () => {
    const r = await generateStructured(withEnv({ ...envFor('openai'), OPENAI_API: 'chat' }), req);
    expect(r.ok).toBe(true);
    expect(fakes.openai?.calls[0]?.path).toBe('/v1/chat/completions');
  });

  it('anthropic through a forced json tool when the model lacks native structured output', async () => {
    const r = await generateStructured(withEnv({ ...envFor('anthropic'), ANTHROPIC_MODEL: 'claude-3-haiku-20240307' }), req);
    expect(r).toMatchObject({ ok: true, value: { answer: 'Use the reset link on the login page.' } });
  });
});

describe('failures: bounded retries, then a failed outcome', () => {
  it('429 twice then success: retried, three attempts', async () => {
    fakes.gemini?.failNext(429, 2);
    const r = await generateStructured(withEnv(envFor('gemini')), req);
    expect(r).toMatchObject({ ok: true, attempts: 3 });
    const [row] = await t.ctx.db.select().from(aiUsage);
    expect(row).toMatchObject({ calls: 1, failures: 0, retries: 2 });
  });

  it('500 on every attempt: failed after 1 + AI_MAX_RETRIES attempts, counted as a failure', async () => {
    fakes.openai?.failNext(500, 3);
    const r = await generateStructured(withEnv(envFor('openai')), req);
    expect(r).toMatchObject({ ok: false, outcome: 'failed', failure: 'server_error', status: 500, attempts: 3 });
    expect(fakes.openai?.calls).toHaveLength(3);
    const [row] = await t.ctx.db.select().from(aiUsage);
    expect(row).toMatchObject({ calls: 1, failures: 1, retries: 2 });
  });

  it('a malformed reply is a failed attempt, never a parsed guess', async () => {
    fakes.anthropic?.malformedNext(3);
    const r = await generateStructured(withEnv(envFor('anthropic')), req);
    expect(r).toMatchObject({ ok: false, outcome: 'failed', failure: 'malformed', attempts: 3 });
  });

  it('a reply that parses but breaks the schema is retried and then fails', async () => {
    for (const f of Object.values(fakes)) f.reply = () => ({ answer: '', confidence: 7 });
    const r = await generateStructured(withEnv(envFor('ollama')), req);
    expect(r).toMatchObject({ ok: false, failure: 'malformed', attempts: 3 });
  });

  it('a broken HTTP body is retried', async () => {
    fakes.openai?.brokenBodyNext(1);
    const r = await generateStructured(withEnv(envFor('openai')), req);
    expect(r).toMatchObject({ ok: true, attempts: 2 });
  });

  it('a hung provider times out per attempt and the call fails within the bound', async () => {
    fakes.ollama?.hangNext(2);
    const started = Date.now();
    const r = await generateStructured(withEnv({ ...envFor('ollama'), AI_TIMEOUT_MS: 150, AI_MAX_RETRIES: 1 }), req);
    expect(r).toMatchObject({ ok: false, failure: 'timeout', attempts: 2 });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('401 is not retried', async () => {
    const r = await generateStructured(withEnv({ ...envFor('openai'), OPENAI_API_KEY: 'wrong' }), req);
    expect(r).toMatchObject({ ok: false, failure: 'http_error', status: 401, attempts: 1 });
  });

  it('no provider configured: says so and calls nothing', async () => {
    const r = await generateStructured(withEnv({}), req);
    expect(r).toMatchObject({ ok: false, outcome: 'no_provider' });
    if (!r.ok) expect(r.reason).toMatch(/no provider configured/);
    expect(await t.ctx.db.select().from(aiUsage)).toHaveLength(0);
  });
});

describe('provider choice', () => {
  it('auto-detects in the order openai, anthropic, gemini, ollama', async () => {
    const r = await generateStructured(withEnv({ ...envFor('ollama'), ...envFor('gemini'), ...envFor('anthropic') }), req);
    expect(r).toMatchObject({ ok: true, provider: 'anthropic' });
  });

  it('the pipeline setting picks one; the admin config overrides env, with its own encrypted key and base URL', async () => {
    const ctx = withEnv({ ...envFor('openai'), ...envFor('gemini'), FAQ_AUDIT_PROVIDER: 'gemini', FAQ_AUDIT_MODEL: 'gemini-x' });
    const audit = await generateStructured(ctx, { ...req, pipeline: 'faq_audit' });
    expect(audit).toMatchObject({ ok: true, provider: 'gemini', model: 'gemini-x' });
    expect(fakes.gemini?.calls[0]?.model).toBe('gemini-x');
    const answer = await generateStructured(ctx, req);
    expect(answer).toMatchObject({ ok: true, provider: 'openai' });

    const [row] = await t.ctx.db
      .insert(aiConfigs)
      .values({ scope: 'global', autoAnswerProvider: 'anthropic', autoAnswerModel: 'claude-custom' })
      .returning();
    const id = row?.id as string;
    const f = fakes.anthropic as FakeAiServer;
    await t.ctx.db
      .update(aiConfigs)
      .set({ apiKeys: { anthropic: t.ctx.secrets.encrypt(f.apiKey, keyAad(id, 'anthropic')) }, baseUrls: { anthropic: f.baseUrl } });
    const viaConfig = await generateStructured(ctx, req);
    expect(viaConfig).toMatchObject({ ok: true, provider: 'anthropic', model: 'claude-custom' });
    const usage = await t.ctx.db.select().from(aiUsage);
    expect(usage.map((u) => `${u.provider}/${u.model}/${u.pipeline}`).sort()).toEqual([
      'anthropic/claude-custom/auto_answer',
      'gemini/gemini-x/faq_audit',
      'openai/gpt-4o-mini/auto_answer',
    ]);
  });

  it('a model set in the admin config applies to the chosen or detected provider, over the environment', async () => {
    // The repro: AUTO_ANSWER_MODEL in the environment, the OpenAI key stored in the admin config, no provider named anywhere.
    const f = fakes.openai as FakeAiServer;
    const ctx = withEnv({ OPENAI_BASE_URL: f.baseUrl, AUTO_ANSWER_MODEL: 'env-model-z', FAQ_AUDIT_MODEL: 'env-audit-model' });
    const [row] = await t.ctx.db.insert(aiConfigs).values({ scope: 'global', autoAnswerModel: 'admin-model-x' }).returning();
    const id = row?.id as string;
    await t.ctx.db.update(aiConfigs).set({ apiKeys: { openai: t.ctx.secrets.encrypt(f.apiKey, keyAad(id, 'openai')) } });
    const r = await generateStructured(ctx, req);
    expect(r).toMatchObject({ ok: true, provider: 'openai', model: 'admin-model-x' });
    expect(f.calls[0]?.model).toBe('admin-model-x');

    const choose = async (over: Partial<typeof aiConfigs.$inferInsert>, env: Partial<Record<keyof Config, unknown>> = {}) => {
      await t.ctx.db.update(aiConfigs).set({ autoAnswerModel: null, ...over });
      const resolved = await resolveAi(withEnv({ OPENAI_BASE_URL: f.baseUrl, ...envFor('gemini'), ...env }));
      return (p: AiPipeline) => {
        const c = resolved.choose(p);
        return `${c.provider}/${c.model}/${c.source}`;
      };
    };
    // The general admin model, for every pipeline; a per-pipeline one wins over it; both win over the environment.
    let c = await choose(
      { model: 'general-model', autoAnswerModel: 'admin-model-x' },
      { AUTO_ANSWER_MODEL: 'env-model-z', FAQ_AUDIT_MODEL: 'env-audit-model' },
    );
    expect(c('auto_answer')).toBe('openai/admin-model-x/auto');
    expect(c('faq_audit')).toBe('openai/general-model/auto');
    expect(c('knowledge_chat')).toBe('openai/general-model/auto');
    expect(c('conf_insights')).toBe('openai/general-model/auto');
    c = await choose({ model: null, auditModel: 'admin-audit-model' }, { FAQ_AUDIT_MODEL: 'env-audit-model' });
    expect(c('faq_audit')).toBe('openai/admin-audit-model/auto');
    // A provider named by the environment takes the admin config's model too.
    c = await choose(
      { model: null, auditModel: null, autoAnswerModel: 'admin-model-x' },
      { AUTO_ANSWER_PROVIDER: 'gemini', AUTO_ANSWER_MODEL: 'env-model-z' },
    );
    expect(c('auto_answer')).toBe('gemini/admin-model-x/env');
    c = await choose({}, { AUTO_ANSWER_PROVIDER: 'gemini', AUTO_ANSWER_MODEL: 'env-model-z' });
    expect(c('auto_answer')).toBe('gemini/env-model-z/env');
    // A model below the level that names the provider belongs to another provider: the named one's default.
    c = await choose({ provider: 'gemini' }, { AUTO_ANSWER_PROVIDER: 'openai', AUTO_ANSWER_MODEL: 'env-model-z' });
    expect(c('auto_answer')).toBe('gemini/gemini-2.5-flash/config');
    c = await choose({ provider: 'gemini', autoAnswerModel: 'admin-model-x' });
    expect(c('auto_answer')).toBe('gemini/admin-model-x/config');
  });

  it('a pipeline set to a provider without a key reports no provider configured', async () => {
    const r = await generateStructured(withEnv({ ...envFor('openai'), AUTO_ANSWER_PROVIDER: 'gemini' }), req);
    expect(r).toMatchObject({ ok: false, outcome: 'no_provider', provider: 'gemini' });
  });
});
