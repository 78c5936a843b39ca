import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { CoreContext } from '../context.js';
import { scrubSecrets } from '../runtime/redact.js';
import { storableText, storableValue } from '../shared/text.js';
import { AI_PROVIDERS, type AiProviderName, languageModel } from './providers.js';
import { type AiPipeline, type ResolvedAi, resolveAi } from './settings.js';
import { recordUsage } from './usage.js';

/**
 * The one way domain code calls an AI provider:
 *
 *   const r = await generateStructured(ctx, { pipeline: 'auto_answer', batchId, schema, system, prompt });
 *   if (r.ok) use(r.value)            // typed by the TypeBox schema, validated
 *   else if (r.outcome === 'no_provider') escalate(r.reason)   // never invent text
 *   else escalate(r.reason)           // failed after bounded retries
 *
 * The provider and model come from the pipeline's choice (settings.ts: admin AI config over env over
 * auto-detection). Every call has a timeout per attempt (AI_TIMEOUT_MS), at most AI_MAX_RETRIES
 * retries with exponential backoff (429, 5xx, network, timeout, malformed or schema-invalid output;
 * a 4xx other than 429 fails at once; the provider's `retry-after-ms` or `retry-after`, in seconds or
 * as an HTTP date, wins over the backoff, at most 30 s), an output-token cap (AI_MAX_OUTPUT_TOKENS),
 * and output checked against the schema (and the request's `check`): a reply that does not parse or
 * validate is a failed attempt, never a guess. A refusal (OpenAI `refusal`, Anthropic `stop_reason:
 * refusal`, a Gemini safety block: the SDK's finish reason `content-filter`) fails as `refused` and a
 * reply cut off at the output-token cap (`length`: finish_reason length, max_tokens, MAX_TOKENS) that
 * does not parse fails as `truncated`, both without a retry: at temperature 0 the same prompt gets the
 * same answer. Every failure text is scrubbed of the configured API keys (scrubSecrets) before it is
 * logged or returned, since a provider's error message may quote the key it was sent.
 * Usage (calls, failures, retries, input and output tokens) is added per provider, model, pipeline and
 * program. It never throws for a provider failure; it throws only for a programming error.
 */
export interface GenerateRequest<S extends TSchema> {
  pipeline: AiPipeline;
  /** Program the call is for (usage is recorded per program); null when none. */
  batchId?: string | null;
  schema: S;
  /**
   * A rule the schema cannot express (e.g. "answer is not blank when answerable is true"): a message
   * makes the reply invalid, a failed attempt like a schema-invalid one; null accepts it.
   */
  check?: (value: Static<S>) => string | null;
  /** Name of the output for providers that use one (tool name, schema name). */
  schemaName?: string;
  system: string;
  prompt: string;
  /** Lower cap than AI_MAX_OUTPUT_TOKENS for this call. */
  maxOutputTokens?: number;
  signal?: AbortSignal;
  /** Use this provider/model instead of the pipeline's choice (the provider test). */
  override?: { provider: AiProviderName; model?: string };
  /** Fewer retries than AI_MAX_RETRIES for this call (the provider test uses 0). */
  maxRetries?: number;
  /** Already resolved settings (a run resolves once and reuses them). */
  resolved?: ResolvedAi;
}

export type FailureKind =
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'http_error'
  | 'network'
  | 'malformed'
  | 'aborted'
  /** The provider declined to answer (a refusal or a safety block); not retried. */
  | 'refused'
  /** The reply was cut off at the output-token cap and does not parse; not retried. */
  | 'truncated';

export interface CallInfo {
  provider: AiProviderName;
  model: string;
  attempts: number;
  latencyMs: number;
  usage: { inputTokens: number; outputTokens: number };
}

export type GenerateResult<T> =
  | ({ ok: true; value: T } & CallInfo)
  | { ok: false; outcome: 'no_provider'; reason: string; provider: AiProviderName | null; model: string | null }
  | ({ ok: false; outcome: 'failed'; reason: string; failure: FailureKind; status?: number } & CallInfo);

/** JSON Schema for providers: TypeBox's symbols dropped, objects closed (OpenAI strict mode needs it). */
export function providerSchema(schema: TSchema): Record<string, unknown> {
  const close = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(close);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = close(v);
    if (out.type === 'object' && out.additionalProperties === undefined) out.additionalProperties = false;
    return out;
  };
  return close(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve();
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

interface Classified {
  kind: FailureKind;
  retryable: boolean;
  status?: number;
  message: string;
  retryAfterMs?: number;
  usage?: { inputTokens: number; outputTokens: number };
}

type AiSdk = typeof import('ai');

/** The longest wait between attempts, whatever the provider asks for. */
const MAX_WAIT_MS = 30_000;

/**
 * The wait a provider asks for before the next attempt: `retry-after-ms` (OpenAI), else `retry-after`
 * in seconds or as an HTTP date (a date already past: no wait); at most MAX_WAIT_MS; undefined when
 * neither header is there or readable.
 */
export function retryAfterMs(headers: Record<string, string | undefined>, now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms']?.trim();
  if (ms) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.min(n, MAX_WAIT_MS);
  }
  const ra = headers['retry-after']?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.min(Number(ra) * 1000, MAX_WAIT_MS);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), MAX_WAIT_MS);
}

/** A reply the model stopped without an answer: thrown inside an attempt, classified like an SDK error. */
class StoppedReply extends Error {
  constructor(
    readonly finishReason: 'content-filter' | 'length',
    readonly text: string,
  ) {
    super(`reply stopped: ${finishReason}`);
  }
}

/** Refusal or truncation, from the SDK's unified finish reason; null for any other. */
function stopped(finishReason: unknown, text: string | undefined, maxOutputTokens: number): Classified | null {
  if (finishReason === 'content-filter') {
    const said = (text ?? '').trim();
    return {
      kind: 'refused',
      retryable: false,
      message: `refused to answer${said ? `: ${JSON.stringify(said.length > 300 ? `${said.slice(0, 300)}…` : said)}` : ' (blocked by its content filter)'}`,
    };
  }
  if (finishReason === 'length')
    return { kind: 'truncated', retryable: false, message: `reply truncated at the output token cap (${maxOutputTokens} tokens)` };
  return null;
}

function classify(ai: AiSdk, err: unknown, timedOut: boolean, callerAborted: boolean, maxOutputTokens: number): Classified {
  const { APICallError, NoObjectGeneratedError, TypeValidationError } = ai;
  if (callerAborted) return { kind: 'aborted', retryable: false, message: 'aborted by the caller' };
  if (timedOut) return { kind: 'timeout', retryable: true, message: 'provider did not answer in time' };
  if (err instanceof StoppedReply) return stopped(err.finishReason, err.text, maxOutputTokens) as Classified;
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const retryAfter = retryAfterMs(err.responseHeaders ?? {});
    const base = {
      message: `${status ?? 'network'}: ${err.message}`,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    };
    if (status === undefined) return { kind: 'network', retryable: true, ...base };
    // A 2xx the client could not read (a body that is not JSON, a missing field) is a malformed reply.
    if (status >= 200 && status < 300) return { kind: 'malformed', retryable: true, status, ...base };
    if (status === 429) return { kind: 'rate_limited', retryable: true, status, ...base };
    if (status >= 500) return { kind: 'server_error', retryable: true, status, ...base };
    if (status === 408) return { kind: 'timeout', retryable: true, status, ...base };
    return { kind: 'http_error', retryable: false, status, ...base };
  }
  const message = err instanceof Error ? err.message : String(err);
  const noObject = NoObjectGeneratedError.isInstance(err) ? err : null;
  const usage = noObject?.usage
    ? { inputTokens: noObject.usage.inputTokens ?? 0, outputTokens: noObject.usage.outputTokens ?? 0 }
    : undefined;
  // A reply that does not parse because the model refused (its refusal is the text) or ran out of tokens.
  const stop = noObject ? stopped(noObject.finishReason, noObject.text, maxOutputTokens) : null;
  if (stop) return { ...stop, ...(usage ? { usage } : {}) };
  // A reply that broke the schema: say which rule (our validator's message, not the reply it quotes).
  const broken = noObject && TypeValidationError.isInstance(noObject.cause) ? noObject.cause.cause : null;
  const detail = broken instanceof Error ? ` (${broken.message})` : '';
  return { kind: 'malformed', retryable: true, message: `malformed reply: ${message}${detail}`, ...(usage ? { usage } : {}) };
}

/**
 * Every API key the process knows (the environment's and the admin config's, of every provider): a
 * failure text may quote the one sent (a gateway's 401 "bad key ..."), and none of them may be stored,
 * returned or logged.
 */
function knownKeys(ctx: Pick<CoreContext, 'config'>, resolved: ResolvedAi): string[] {
  const { OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OLLAMA_API_KEY } = ctx.config;
  return [
    OPENAI_API_KEY,
    ANTHROPIC_API_KEY,
    GEMINI_API_KEY,
    OLLAMA_API_KEY,
    ...AI_PROVIDERS.map((p) => resolved.providers[p].apiKey),
  ].filter((k): k is string => typeof k === 'string' && k.length > 0);
}

export async function generateStructured<S extends TSchema>(
  ctx: Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'log' | 'clock'>,
  req: GenerateRequest<S>,
): Promise<GenerateResult<Static<S>>> {
  const resolved = req.resolved ?? (await resolveAi(ctx));
  let provider: AiProviderName;
  let model: string;
  if (req.override) {
    const state = resolved.providers[req.override.provider];
    if (!state.configured)
      return {
        ok: false,
        outcome: 'no_provider',
        reason: `no provider configured: ${req.override.provider} has no ${req.override.provider === 'ollama' ? 'host' : 'API key'}`,
        provider: req.override.provider,
        model: null,
      };
    provider = req.override.provider;
    model = req.override.model ?? state.defaultModel;
  } else {
    const choice = resolved.choose(req.pipeline);
    if (!choice.configured)
      return { ok: false, outcome: 'no_provider', reason: choice.reason, provider: choice.provider, model: choice.model };
    provider = choice.provider;
    model = choice.model;
  }
  const state = resolved.providers[provider];
  const ai = await import('ai');
  const { generateText, jsonSchema, Output } = ai;
  const lm = await languageModel({
    provider,
    model,
    baseUrl: state.baseUrl,
    openaiApi: ctx.config.OPENAI_API,
    ...(state.apiKey ? { apiKey: state.apiKey } : {}),
  });
  const schema = jsonSchema<Static<S>>(providerSchema(req.schema) as never, {
    // The one place a reply is read: its strings are made storable first (a NUL is refused by text and
    // jsonb columns, 22P05; a lone surrogate half too), so every pipeline checks and stores clean text.
    validate: (raw) => {
      const value = storableValue(raw);
      if (Value.Check(req.schema, value)) {
        const problem = req.check?.(value as Static<S>) ?? null;
        return problem === null ? { success: true, value: value as Static<S> } : { success: false, error: new Error(problem) };
      }
      const first = Value.Errors(req.schema, value).First();
      return { success: false, error: new Error(first ? `${first.path || '/'}: ${first.message}` : 'does not match the schema') };
    },
  });
  const maxOutputTokens = Math.min(req.maxOutputTokens ?? ctx.config.AI_MAX_OUTPUT_TOKENS, ctx.config.AI_MAX_OUTPUT_TOKENS);
  const maxAttempts = 1 + Math.min(req.maxRetries ?? ctx.config.AI_MAX_RETRIES, ctx.config.AI_MAX_RETRIES);
  const keys = knownKeys(ctx, resolved);
  const started = performance.now();
  const usage = { inputTokens: 0, outputTokens: 0 };
  let attempts = 0;
  let last: Classified | null = null;

  while (attempts < maxAttempts) {
    attempts++;
    const timeout = AbortSignal.timeout(ctx.config.AI_TIMEOUT_MS);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    try {
      const result = await generateText({
        model: lm,
        system: req.system,
        prompt: req.prompt,
        output: Output.object({ schema, name: req.schemaName ?? 'result' }),
        maxOutputTokens,
        temperature: 0,
        maxRetries: 0,
        abortSignal: signal,
        // Ollama reads the cap and temperature only from `options` (the provider's top-level fields are ignored).
        ...(provider === 'ollama' ? { providerOptions: { ollama: { options: { num_predict: maxOutputTokens, temperature: 0 } } } } : {}),
      });
      usage.inputTokens += result.usage.inputTokens ?? 0;
      usage.outputTokens += result.usage.outputTokens ?? 0;
      // A refusal is no answer even when some text parses; a reply cut off at the cap that still parsed
      // and validated is complete. Without any text the SDK has no output, so read the reason first.
      if (result.finishReason === 'content-filter' || (result.finishReason === 'length' && !result.text))
        throw new StoppedReply(result.finishReason, result.text);
      const value = result.output as Static<S>;
      const info: CallInfo = { provider, model, attempts, latencyMs: Math.round(performance.now() - started), usage };
      await safeRecord(ctx, {
        provider,
        model,
        pipeline: req.pipeline,
        batchId: req.batchId ?? null,
        failed: false,
        retries: attempts - 1,
        ...usage,
      });
      ctx.log.info({ provider, model, pipeline: req.pipeline, attempts, latencyMs: info.latencyMs, ...usage }, '[ai] call ok');
      return { ok: true, value, ...info };
    } catch (err) {
      const c = classify(ai, err, timeout.aborted, req.signal?.aborted === true, maxOutputTokens);
      // The one place a failure text is scrubbed (before it is clipped, so no part of a key survives):
      // everything below (the log line, the reason returned and stored) reads this one.
      // Storable too: the reason is stored (a refusal quotes the model's text, an error its body).
      last = { ...c, message: storableText(scrubSecrets(c.message, keys).slice(0, 500)) };
      if (c.usage) {
        usage.inputTokens += c.usage.inputTokens;
        usage.outputTokens += c.usage.outputTokens;
      }
      ctx.log.warn(
        { provider, model, pipeline: req.pipeline, attempt: attempts, failure: last.kind, status: last.status, err: last.message },
        '[ai] attempt failed',
      );
      if (!last.retryable || attempts >= maxAttempts) break;
      const backoff = ctx.config.AI_RETRY_BASE_MS * 2 ** (attempts - 1);
      await sleep(Math.min(last.retryAfterMs ?? backoff, MAX_WAIT_MS), req.signal);
      if (req.signal?.aborted) break;
    }
  }
  const failure = last as Classified;
  const info: CallInfo = { provider, model, attempts, latencyMs: Math.round(performance.now() - started), usage };
  await safeRecord(ctx, {
    provider,
    model,
    pipeline: req.pipeline,
    batchId: req.batchId ?? null,
    failed: true,
    retries: attempts - 1,
    ...usage,
  });
  return {
    ok: false,
    outcome: 'failed',
    reason:
      failure.kind === 'refused' || failure.kind === 'truncated'
        ? `${provider} ${failure.message}${attempts > 1 ? ` (attempt ${attempts})` : ''}`
        : `${provider} call failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${failure.message}`,
    failure: failure.kind,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    ...info,
  };
}

async function safeRecord(ctx: Pick<CoreContext, 'pool' | 'clock' | 'log'>, d: Parameters<typeof recordUsage>[1]) {
  try {
    await recordUsage(ctx, d);
  } catch (err) {
    ctx.log.error({ err }, '[ai] could not record usage');
  }
}
