import { aiConfigs } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { AI_PROVIDERS, type AiProviderName, DETECTION_ORDER, envProvider, isProviderName } from './providers.js';

/**
 * Which provider and model each pipeline uses. Levels, highest first: the admin AI config's
 * per-pipeline provider/model (auto_answer, faq_audit), the admin config's general provider/model, the
 * pipeline's environment settings (AUTO_ANSWER_PROVIDER/_MODEL, FAQ_AUDIT_PROVIDER/_MODEL).
 * - Provider: the highest level that names one, else auto-detection (the first of openai, anthropic,
 *   gemini, ollama that has a key, for Ollama a host).
 * - Model: the highest level that names one, down to the level that chose the provider (every level
 *   for a detected provider), else the provider's default model. A model set in the admin config thus
 *   applies whether or not the admin config also names a provider, and wins over the environment's.
 * Keys and base URLs likewise: the admin config's value wins over the environment's, except that the
 * environment's key is sent only to the environment's host (an admin base URL on another host needs its
 * own key in the admin config).
 */
export type AiPipeline = 'auto_answer' | 'faq_audit' | 'knowledge_chat' | 'conf_insights' | 'provider_test';
export const AI_PIPELINES: readonly AiPipeline[] = ['auto_answer', 'faq_audit', 'knowledge_chat', 'conf_insights'];

export const AI_CONFIG_SCOPE = 'global';
export type AiConfigRow = typeof aiConfigs.$inferSelect;

export interface ProviderState {
  name: AiProviderName;
  configured: boolean;
  apiKey?: string;
  keySource: 'config' | 'env' | null;
  baseUrl: string;
  baseUrlSource: 'config' | 'env';
  /** The environment has a key, but the admin config's base URL is another host: the key is not sent there. */
  envKeyWithheld: boolean;
  defaultModel: string;
}

/** Same scheme, host and port: where the environment's key may be sent. */
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

export type PipelineChoice =
  | { provider: AiProviderName; model: string; source: 'config' | 'env' | 'auto'; configured: true }
  | { provider: AiProviderName | null; model: string | null; source: 'config' | 'env' | 'auto' | null; configured: false; reason: string };

export interface ResolvedAi {
  row: AiConfigRow | null;
  providers: Record<AiProviderName, ProviderState>;
  detected: AiProviderName | null;
  choose(pipeline: AiPipeline): PipelineChoice;
}

export const keyAad = (rowId: string, provider: string) => `${rowId}:ai-key:${provider}`;

export async function loadAiConfigRow(ctx: Pick<CoreContext, 'db'>): Promise<AiConfigRow | null> {
  const [row] = await ctx.db.select().from(aiConfigs).where(eq(aiConfigs.scope, AI_CONFIG_SCOPE)).limit(1);
  return row ?? null;
}

/** Decrypts one stored key; a key that no longer decrypts (rotated ENCRYPTION_KEY) counts as absent. */
export function storedKey(ctx: Pick<CoreContext, 'secrets' | 'log'>, row: AiConfigRow | null, p: AiProviderName): string | undefined {
  const enc = row?.apiKeys?.[p];
  if (!row || !enc) return undefined;
  try {
    return ctx.secrets.decrypt(enc, keyAad(row.id, p));
  } catch {
    ctx.log.warn({ provider: p }, 'stored AI key does not decrypt with the current ENCRYPTION_KEY; ignoring it');
    return undefined;
  }
}

export function resolveAiFromRow(ctx: Pick<CoreContext, 'config' | 'secrets' | 'log'>, row: AiConfigRow | null): ResolvedAi {
  const providers = {} as Record<AiProviderName, ProviderState>;
  for (const p of AI_PROVIDERS) {
    const env = envProvider(ctx.config, p);
    const cfgKey = storedKey(ctx, row, p);
    const cfgUrl = row?.baseUrls?.[p];
    // The operator's key (environment) goes only to the operator's host: an admin base URL on another
    // host needs a key stored with it, else an admin session (or whoever took one) could point the
    // provider at its own server and receive the deployment's key with the next call.
    const envKeyHere = !!env.apiKey && (!cfgUrl || sameOrigin(cfgUrl, env.baseUrl));
    const apiKey = cfgKey ?? (envKeyHere ? env.apiKey : undefined);
    const baseUrl = cfgUrl || env.baseUrl;
    const configured = p === 'ollama' ? baseUrl.length > 0 : !!apiKey;
    providers[p] = {
      name: p,
      configured,
      ...(apiKey ? { apiKey } : {}),
      keySource: cfgKey ? 'config' : envKeyHere ? 'env' : null,
      baseUrl,
      baseUrlSource: cfgUrl ? 'config' : 'env',
      envKeyWithheld: !cfgKey && !!env.apiKey && !envKeyHere,
      defaultModel: env.model,
    };
  }
  const detected = DETECTION_ORDER.find((p) => providers[p].configured) ?? null;

  const choose = (pipeline: AiPipeline): PipelineChoice => {
    // Highest first. A level may set a provider, a model, or both.
    const levels: { provider: unknown; model: unknown; source: 'config' | 'env' }[] = [];
    if (pipeline === 'auto_answer') levels.push({ provider: row?.autoAnswerProvider, model: row?.autoAnswerModel, source: 'config' });
    if (pipeline === 'faq_audit') levels.push({ provider: row?.auditProvider, model: row?.auditModel, source: 'config' });
    levels.push({ provider: row?.provider, model: row?.model, source: 'config' });
    if (pipeline === 'auto_answer')
      levels.push({ provider: ctx.config.AUTO_ANSWER_PROVIDER, model: ctx.config.AUTO_ANSWER_MODEL, source: 'env' });
    if (pipeline === 'faq_audit')
      levels.push({ provider: ctx.config.FAQ_AUDIT_PROVIDER, model: ctx.config.FAQ_AUDIT_MODEL, source: 'env' });
    // The provider: the highest level that names one, else auto-detection.
    const at = levels.findIndex((l) => isProviderName(l.provider));
    const named = at >= 0 ? (levels[at]?.provider as AiProviderName) : null;
    const provider = named ?? detected;
    if (!provider) {
      const withheld = AI_PROVIDERS.filter((p) => providers[p].envKeyWithheld);
      return {
        provider: null,
        model: null,
        source: null,
        configured: false,
        reason: withheld.length
          ? `no provider configured: the environment's API key of ${withheld.join(', ')} is sent only to its own host, and the admin base URL is another host: store an API key for it in the admin AI config`
          : 'no provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or OLLAMA_HOST, or an API key in the admin AI config',
      };
    }
    // The model: the highest level that names one, down to the level that chose the provider (a model set
    // below it belongs to another provider); for a detected provider every level counts. So an admin
    // model without an admin provider applies to the provider the environment names or detection finds.
    const upTo = at >= 0 ? levels.slice(0, at + 1) : levels;
    const m = upTo.find((l) => typeof l.model === 'string' && l.model.length > 0)?.model as string | undefined;
    const state = providers[provider];
    const model = m ?? state.defaultModel;
    const source = at >= 0 ? (levels[at]?.source as 'config' | 'env') : 'auto';
    if (!state.configured)
      return {
        provider,
        model,
        source,
        configured: false,
        reason: state.envKeyWithheld
          ? `no provider configured: ${provider} is selected for ${pipeline}, but its admin base URL is another host than the environment's, and the environment's API key is sent only to its own host: store an API key for ${provider} in the admin AI config`
          : `no provider configured: ${provider} is selected for ${pipeline} but has no ${provider === 'ollama' ? 'host' : 'API key'}`,
      };
    return { provider, model, source, configured: true };
  };

  return { row, providers, detected, choose };
}

/** The admin config (if any) over the environment, read fresh so an admin change applies to the next call. */
export async function resolveAi(ctx: Pick<CoreContext, 'db' | 'config' | 'secrets' | 'log'>): Promise<ResolvedAi> {
  return resolveAiFromRow(ctx, await loadAiConfigRow(ctx));
}
