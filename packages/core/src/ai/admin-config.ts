import { aiConfigs } from '@cfaq/db/schema/index';
import { Type as T, type TSchema } from '@sinclair/typebox';
import { eq, sql } from 'drizzle-orm';
import { adminLogBy, writeAdminLog } from '../audit/index.js';
import { httpUrlProblem } from '../config/checks.js';
import type { CoreContext } from '../context.js';
import { Code, invalidField, notFound } from '../errors/index.js';
import type { Actor } from '../shared/db.js';
import { generateStructured } from './generate.js';
import { AI_PROVIDERS, type AiProviderName, DETECTION_ORDER } from './providers.js';
import { AI_CONFIG_SCOPE, AI_PIPELINES, type AiConfigRow, keyAad, loadAiConfigRow, type ResolvedAi, resolveAiFromRow } from './settings.js';
import type {
  ActiveMap,
  AiConfigView,
  ProvidersReport,
  ProviderTest,
  ProviderTestResult,
  ProviderView,
  ResetUsage,
  RevealedKey,
} from './shape.js';
import { clearUsage, usageReport } from './usage.js';

/**
 * The admin AI configuration (one AiConfig row, scope "global"): provider and model in general and per
 * pipeline, API keys (AES-256-GCM, the row id and provider as additional data; write-only: reads show
 * only whether a key is set, where from, and its last four characters), base URLs, usage counters.
 * Only revealApiKey decrypts a key for a caller, and it is audit-logged.
 */
type Ctx = Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'log' | 'clock'>;

const last4 = (k: string | undefined) => (k ? k.slice(-4) : null);

function providerViews(r: ResolvedAi): ProviderView[] {
  return AI_PROVIDERS.map((p) => {
    const s = r.providers[p];
    return {
      name: p,
      configured: s.configured,
      keySource: s.keySource,
      keyLast4: last4(s.apiKey),
      baseUrl: s.baseUrl || null,
      baseUrlSource: s.baseUrlSource,
      defaultModel: s.defaultModel,
    };
  });
}

function activeChoices(r: ResolvedAi): ActiveMap {
  const out = {} as ActiveMap;
  for (const p of AI_PIPELINES as readonly (keyof ActiveMap)[]) {
    const c = r.choose(p);
    out[p] = { provider: c.provider, model: c.model, source: c.source, configured: c.configured, reason: c.configured ? null : c.reason };
  }
  return out;
}

async function view(ctx: Ctx, row: AiConfigRow | null): Promise<AiConfigView> {
  const r = resolveAiFromRow(ctx, row);
  return {
    provider: row?.provider ?? null,
    model: row?.model ?? null,
    autoAnswerProvider: row?.autoAnswerProvider ?? null,
    autoAnswerModel: row?.autoAnswerModel ?? null,
    faqAuditProvider: row?.auditProvider ?? null,
    faqAuditModel: row?.auditModel ?? null,
    providers: providerViews(r),
    active: activeChoices(r),
    usage: await usageReport(ctx),
    updatedAt: row ? row.updatedAt : null,
    updatedBy: row?.updatedBy ?? null,
  };
}

export async function getAiConfig(ctx: Ctx): Promise<AiConfigView> {
  return view(ctx, await loadAiConfigRow(ctx));
}

const ProviderOrNull = T.Union([...AI_PROVIDERS.map((p) => T.Literal(p)), T.Null()]);
// Not blank: a model of spaces was stored and sent to the provider.
const ModelOrNull = T.Union([T.String({ minLength: 1, maxLength: 200, pattern: '\\S' }), T.Null()]);
const perProvider = <S extends TSchema>(s: S) =>
  T.Object(
    { openai: T.Optional(s), anthropic: T.Optional(s), gemini: T.Optional(s), ollama: T.Optional(s) },
    { additionalProperties: false },
  );

/** PATCH body: every field optional; null clears (falls back to the environment). */
export const AiConfigPatch = T.Object(
  {
    provider: T.Optional(ProviderOrNull),
    model: T.Optional(ModelOrNull),
    autoAnswerProvider: T.Optional(ProviderOrNull),
    autoAnswerModel: T.Optional(ModelOrNull),
    faqAuditProvider: T.Optional(ProviderOrNull),
    faqAuditModel: T.Optional(ModelOrNull),
    apiKeys: T.Optional(
      perProvider(
        T.Union([
          T.String({
            minLength: 8,
            maxLength: 500,
            // What an HTTP header can carry: printable ASCII without spaces. A key of other characters was
            // stored, could never be sent, and every call failed as a retried "malformed reply".
            pattern: '^[!-~]+$',
            description: 'the key (printable ASCII, no spaces); null removes the stored one',
          }),
          T.Null(),
        ]),
      ),
    ),
    baseUrls: T.Optional(
      perProvider(
        T.Union([
          T.String({
            minLength: 1,
            maxLength: 500,
            // Schemes are case-insensitive (HTTPS://...); checkBaseUrls parses the rest.
            pattern: '^[hH][tT][tT][pP][sS]?://[^\\s]+$',
            description: 'http(s) URL; null: the environment value',
          }),
          T.Null(),
        ]),
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type AiConfigPatchInput = {
  provider?: AiProviderName | null;
  model?: string | null;
  autoAnswerProvider?: AiProviderName | null;
  autoAnswerModel?: string | null;
  faqAuditProvider?: AiProviderName | null;
  faqAuditModel?: string | null;
  apiKeys?: Partial<Record<AiProviderName, string | null>>;
  baseUrls?: Partial<Record<AiProviderName, string | null>>;
};

async function lockedRow(tx: Pick<CoreContext, 'db'>['db']): Promise<AiConfigRow> {
  await tx.insert(aiConfigs).values({ scope: AI_CONFIG_SCOPE }).onConflictDoNothing({ target: aiConfigs.scope });
  const [row] = await tx.select().from(aiConfigs).where(eq(aiConfigs.scope, AI_CONFIG_SCOPE)).for('update').limit(1);
  return row as AiConfigRow;
}

/**
 * The schema's pattern only says "http(s)://, no spaces": "http://a:99999/" and "http://[::1" pass it and
 * would fail every provider call later. Each URL must parse, as http or https, with a host.
 */
/** Each base URL by the rule the environment's base URLs are held to at start (config/checks.ts). */
function checkBaseUrls(urls: AiConfigPatchInput['baseUrls']): void {
  for (const [p, v] of Object.entries(urls ?? {})) {
    if (typeof v !== 'string') continue;
    const problem = httpUrlProblem(v, { base: true });
    if (problem) throw invalidField(`body.baseUrls.${p}`, problem);
  }
}

export async function updateAiConfig(ctx: Ctx, actor: Actor & { ip?: string }, patch: AiConfigPatchInput): Promise<AiConfigView> {
  checkBaseUrls(patch.baseUrls);
  const row = await ctx.db.transaction(async (tx) => {
    const cur = await lockedRow(tx);
    const set: Partial<typeof aiConfigs.$inferInsert> = { updatedBy: actor.id, updatedAt: ctx.clock.now() };
    const changed: string[] = [];
    const scalar = {
      provider: 'provider',
      model: 'model',
      autoAnswerProvider: 'autoAnswerProvider',
      autoAnswerModel: 'autoAnswerModel',
      faqAuditProvider: 'auditProvider',
      faqAuditModel: 'auditModel',
    } as const;
    for (const [k, col] of Object.entries(scalar) as [keyof typeof scalar, (typeof scalar)[keyof typeof scalar]][]) {
      if (patch[k] === undefined || patch[k] === (cur as Record<string, unknown>)[col]) continue;
      (set as Record<string, unknown>)[col] = patch[k];
      changed.push(k);
    }
    if (patch.apiKeys) {
      const keys = { ...cur.apiKeys };
      // The stored key in clear, to tell a key set again from a new one (a row the key no longer opens: new).
      const storedKey = (value: string | undefined, p: AiProviderName) => {
        if (value === undefined) return undefined;
        try {
          return ctx.secrets.decrypt(value, keyAad(cur.id, p));
        } catch {
          return undefined;
        }
      };
      for (const [p, v] of Object.entries(patch.apiKeys) as [AiProviderName, string | null | undefined][]) {
        if (v === undefined || (v === null && keys[p] === undefined) || (v !== null && storedKey(keys[p], p) === v)) continue;
        if (v === null) delete keys[p];
        else keys[p] = ctx.secrets.encrypt(v, keyAad(cur.id, p));
        changed.push(`apiKeys.${p}`);
      }
      set.apiKeys = keys;
    }
    if (patch.baseUrls) {
      const urls = { ...cur.baseUrls };
      for (const [p, v] of Object.entries(patch.baseUrls) as [AiProviderName, string | null | undefined][]) {
        if (v === undefined || (v ?? undefined) === urls[p]) continue;
        if (v === null) delete urls[p];
        else urls[p] = v;
        changed.push(`baseUrls.${p}`);
      }
      set.baseUrls = urls;
    }
    // Nothing differs from what is stored (`{baseUrls: {}}`, a value set again): no write, no log line.
    if (changed.length === 0) return cur;
    const [next] = await tx.update(aiConfigs).set(set).where(eq(aiConfigs.id, cur.id)).returning();
    // Never the key values: which fields changed, and the new values of those that are not keys.
    const shown: Record<string, unknown> = {};
    for (const field of changed) {
      const [top, provider] = field.split('.') as [string, string | undefined];
      if (top === 'apiKeys') continue;
      if (provider === undefined) shown[top] = patch[top as keyof typeof scalar];
      else shown[top] = { ...(shown[top] as object | undefined), [provider]: patch.baseUrls?.[provider as AiProviderName] };
    }
    await writeAdminLog(tx, {
      ...adminLogBy(actor),
      action: 'ai_config.updated',
      targetType: 'AiConfig',
      targetId: cur.id,
      details: { changed, ...shown },
    });
    return next as AiConfigRow;
  });
  return view(ctx, row);
}

export async function resetAiUsage(ctx: Ctx, actor: Actor & { ip?: string }): Promise<ResetUsage> {
  const now = ctx.clock.now();
  const cleared = await ctx.db.transaction(async (tx) => {
    const cur = await lockedRow(tx);
    const n = await clearUsage(tx);
    await tx
      .update(aiConfigs)
      .set({ usageResetAt: now, requestCount: 0, tokenCount: 0, updatedAt: sql`${aiConfigs.updatedAt}` })
      .where(eq(aiConfigs.id, cur.id));
    await writeAdminLog(tx, {
      ...adminLogBy(actor),
      action: 'ai_config.usage_reset',
      targetType: 'AiConfig',
      targetId: cur.id,
      details: { rows: n },
    });
    return n;
  });
  return { cleared, resetAt: now };
}

export async function listAiProviders(ctx: Ctx): Promise<ProvidersReport> {
  const r = resolveAiFromRow(ctx, await loadAiConfigRow(ctx));
  return { detectionOrder: [...DETECTION_ORDER], detected: r.detected, providers: providerViews(r), active: activeChoices(r) };
}

const Pong = T.Object({ ok: T.Boolean() });

/**
 * What the provider test calls: on each configured provider, every model a pipeline would use there (a
 * model that only the provider's default stands for would pass while the pipelines' own one fails), else its default.
 */
function modelsToTest(resolved: ResolvedAi): { provider: AiProviderName; model: string }[] {
  const active = Object.values(activeChoices(resolved));
  return AI_PROVIDERS.filter((p) => resolved.providers[p].configured).flatMap((provider) => {
    const used = [...new Set(active.flatMap((c) => (c.configured && c.provider === provider && c.model ? [c.model] : [])))];
    return (used.length ? used : [resolved.providers[provider].defaultModel]).map((model) => ({ provider, model }));
  });
}

/** A real minimal round trip (structured, no retries) to every configured provider and model in use, in parallel. */
export async function testAiProviders(ctx: Ctx): Promise<ProviderTest> {
  const resolved = resolveAiFromRow(ctx, await loadAiConfigRow(ctx));
  const results = await Promise.all(
    modelsToTest(resolved).map(async ({ provider: p, model }): Promise<ProviderTestResult> => {
      const started = performance.now();
      const r = await generateStructured(ctx, {
        pipeline: 'provider_test',
        schema: Pong,
        schemaName: 'pong',
        system: 'You are a health check. Reply with {"ok": true}.',
        prompt: 'ping',
        maxOutputTokens: 32,
        maxRetries: 0,
        override: { provider: p, model },
        resolved,
      });
      const latencyMs = r.ok || r.outcome === 'failed' ? r.latencyMs : Math.round(performance.now() - started);
      return { provider: p, model, ok: r.ok, latencyMs, error: r.ok ? null : r.reason };
    }),
  );
  return { results, notConfigured: AI_PROVIDERS.filter((p) => !resolved.providers[p].configured) };
}

/** The one place a stored key leaves the database in clear; audit-logged. 404 when no key is stored. */
export async function revealApiKey(ctx: Ctx, actor: Actor & { ip?: string }, provider: AiProviderName): Promise<RevealedKey> {
  const row = await loadAiConfigRow(ctx);
  const enc = row?.apiKeys?.[provider];
  if (!row || !enc) throw notFound(`Stored ${provider} API key`, Code.API_KEY_NOT_FOUND);
  let apiKey: string;
  try {
    apiKey = ctx.secrets.decrypt(enc, keyAad(row.id, provider));
  } catch {
    throw notFound(`Stored ${provider} API key (it does not decrypt with the current ENCRYPTION_KEY)`, Code.API_KEY_NOT_FOUND);
  }
  await writeAdminLog(ctx, {
    ...adminLogBy(actor),
    action: 'ai_config.api_key_revealed',
    targetType: 'AiConfig',
    targetId: row.id,
    details: { provider },
  });
  return { provider, apiKey };
}
