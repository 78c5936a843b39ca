import { Ollama } from 'ollama';
import { Code, unavailable } from '../errors/index.js';
import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder.js';
import { scale } from './local-embedder.js';

export interface OllamaEmbedderOptions {
  host: string;
  model: string;
  /** How long Ollama keeps the model loaded after a request. */
  keepAlive?: string;
  /** Per-request timeout; a hung model server must not hang a search (it degrades to text-only). */
  timeoutMs?: number;
  /** OLLAMA_API_KEY: a bearer token for an Ollama behind an authenticating proxy. */
  apiKey?: string;
}

/**
 * `v` scaled to length 1, or null for a vector of zeros. Every comparison is a cosine, which the scale
 * does not change, but a stored vector must fit pgvector's float4 (a value past 3.4e38 failed the
 * statement as a client's 400) and have a direction (a zero vector's cosine is NaN: the search ranked
 * anything first and the serializer failed on the score, a 500). Divided by its largest value before
 * `scale` squares it, so 1e300 cannot overflow.
 */
export function unitVector(v: readonly number[]): number[] | null {
  const max = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  if (max === 0) return null;
  const vec = Float64Array.from(v, (x) => x / max);
  scale(vec, 0, vec.length, 1);
  return Array.from(vec);
}

/**
 * Semantic embeddings from an Ollama server (POST /api/embed, `{ model, input: [...] }` ->
 * `{ embeddings: [[...]] }`). The model must produce 768 dimensions (nomic-embed-text does); any other
 * width is an error rather than a silently broken index. Vectors are stored at length 1 (unitVector).
 */
export class OllamaEmbedder implements Embedder {
  readonly model: string;
  private readonly client: Ollama;
  private readonly keepAlive: string;

  constructor(opts: OllamaEmbedderOptions) {
    this.model = opts.model;
    this.keepAlive = opts.keepAlive ?? '30m';
    const timeoutMs = opts.timeoutMs ?? 10_000;
    this.client = new Ollama({
      host: opts.host,
      // No redirect is followed, as for every provider call (ai/providers.ts): the key stays with the host.
      fetch: (input, init) => fetch(input, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) }),
      ...(opts.apiKey ? { headers: { authorization: `Bearer ${opts.apiKey}` } } : {}),
    });
  }

  /**
   * The server unreachable, slow past the timeout, answering an error, or answering vectors of the
   * wrong number or size (a model other than a 768-dimension one) is a 503 EMBEDDER_UNAVAILABLE for
   * whichever request needed the vectors (knowledge ingest answered 500); searches catch it and go on
   * with the keyword side alone.
   */
  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const fail = (why: string) => unavailable(Code.EMBEDDER_UNAVAILABLE, `embedding model ${this.model} is not available: ${why}`);
    let res: Awaited<ReturnType<Ollama['embed']>>;
    try {
      res = await this.client.embed({ model: this.model, input: texts, truncate: true, keep_alive: this.keepAlive });
    } catch (err) {
      throw fail((err as Error).message);
    }
    if (!Array.isArray(res?.embeddings) || res.embeddings.length !== texts.length) {
      throw fail(`it returned ${Array.isArray(res?.embeddings) ? res.embeddings.length : 0} embeddings for ${texts.length} inputs`);
    }
    return (res.embeddings as unknown[]).map((v) => {
      if (!Array.isArray(v) || v.length !== EMBEDDING_DIMENSIONS || !v.every(Number.isFinite)) {
        const size = Array.isArray(v) ? `${v.length} dimensions` : 'no vector';
        throw fail(`it returned ${size} where ${EMBEDDING_DIMENSIONS} finite numbers were expected`);
      }
      const unit = unitVector(v as number[]);
      if (!unit) throw fail('it returned a vector of zeros, which has no direction');
      return unit;
    });
  }

  /** Loads the model; an unreachable server or missing model is a 503 for GET /warm, not a 500. */
  async warm() {
    const start = performance.now();
    await this.embed(['warm up']);
    return { model: this.model, ms: performance.now() - start };
  }
}
