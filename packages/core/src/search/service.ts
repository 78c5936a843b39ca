import { LRUCache } from 'lru-cache';
import type { CoreContext } from '../context.js';
import { embeddingText } from '../embeddings/embed-row.js';
import { cosineSimilarity, embedOne } from '../embeddings/embedder.js';
import { badRequest, Code, unavailable } from '../errors/index.js';
import { resolveProgramId } from '../programs/resolve.js';
import { INVISIBLE_CLASS } from '../shared/text.js';
import { CacheGeneration } from './cache-generation.js';
import { createSearchClientKeyer } from './client-key.js';
import { DUPLICATE_MIN_CHARS, type DuplicateCandidate, pickDuplicate } from './duplicate-rule.js';
import { runHybridSearch } from './hybrid-runner.js';
import type { SearchMode } from './hybrid-sql.js';
import { SearchLogBuffer } from './log-buffer.js';
import type { SearchResponse, SearchResult } from './shape.js';
import { HYBRID_SEARCH_SOURCES, type SearchSource } from './sources.js';
import { unembeddedSameQuestion } from './unembedded-faqs.js';

export interface SearchParams {
  query: string;
  batchId?: string | undefined;
  userId?: string | null | undefined;
  /** The client's address, kept only as a keyed hash (searchClientKey) to count distinct searchers. */
  clientIp?: string | null | undefined;
}

/**
 * Step 1 of the pipeline: trim and lower-case (also collapses inner whitespace into single spaces, and
 * drops the invisible format characters, zero-width spaces and the like, so "\u200breset" is the query
 * "reset": one cache entry, one log row, one suggestion). The patterns match only what changes (runs of
 * two or more, or a lone tab, newline or other non-space whitespace), so an already clean query, the
 * usual case on every cache hit, is returned as it came.
 */
const MESSY_WHITESPACE = /\s\s+|[^\S ]/g;
const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, 'g');
// One pass over the invisible class: a control character (U+009F and below) becomes a space, since between
// two words it separates them as PostgreSQL's parser reads it (dropped, it joined "yak\u0001shaving" into
// one word that matched nothing); a format character is dropped.
const invisibleAs = (c: string) => (c <= '\u009f' ? ' ' : '');
export const normalizeQuery = (q: string) => q.replace(INVISIBLE, invisibleAs).trim().toLowerCase().replace(MESSY_WHITESPACE, ' ');

interface CachedEntry {
  programId: string;
  results: SearchResult[];
  /** The cache generation read before the search ran (see CacheGeneration). */
  generation: string;
}

export interface SearchService {
  /** POST /search: the hybrid pipeline with the result cache and the search log. */
  search(p: SearchParams): Promise<SearchResponse>;
  /** Hybrid search over some sources, no cache, written to the search log (GET /search, /faq/search, /community/search). */
  searchSources(
    p: SearchParams & {
      sources: readonly SearchSource[];
      modes: readonly SearchMode[];
      /** Write the search log (default true; a HEAD request is not a search anyone made). */
      log?: boolean;
    },
  ): Promise<SearchResponse>;
  /** POST /faq/check-match and /faq/check-duplicate. */
  checkDuplicate(p: { query: string; batchId?: string | undefined }): Promise<DuplicateCheck>;
  readonly logs: SearchLogBuffer;
  readonly cacheSize: number;
  close(): Promise<void>;
}

export type DuplicateCheck = { matched: true; faq: { id: string; question: string }; vectorScore: number } | { matched: false };

/**
 * One per API process: holds the LRU result cache (SEARCH_CACHE_MAX entries for
 * SEARCH_CACHE_TTL_SECONDS, keyed on the program AND the normalised query, so one program's results
 * never answer another's) and the buffered search log. An entry is served only while the database's
 * cache generation is the one it was computed under: any committed write that can change an answer
 * (content, visibility, program archive/delete/default switch) moves the generation, in whichever
 * process it happened, so no process serves what is no longer visible.
 */
export function createSearchService(ctx: CoreContext): SearchService {
  const { config } = ctx;
  const cache =
    config.SEARCH_CACHE_MAX > 0
      ? new LRUCache<string, CachedEntry>({ max: config.SEARCH_CACHE_MAX, ttl: config.SEARCH_CACHE_TTL_SECONDS * 1000 })
      : null;
  // Every hit reads the generation (reads shared by the hits of one event-loop turn), not only after a
  // bump's notification arrived: a client that saw a write answered by another API process must not get
  // the old answer here in the milliseconds before that notification lands (on a loaded machine 10-20 ms
  // went by, and 10-40 % of immediate follow-up searches were stale). Read-after-write across processes
  // is worth the read's 35-50 µs of CPU a hit.
  const generation = new CacheGeneration(ctx.pool, { watch: false, log: ctx.log });
  const clientKey = createSearchClientKeyer(config.JWT_SECRET ?? '');
  const logs = new SearchLogBuffer(ctx, config.SEARCH_LOG_FLUSH_MS);
  logs.start();

  /** The query embedding, or null when the embedder fails (the caller degrades to text-only). */
  async function embedQuery(query: string): Promise<number[] | null> {
    try {
      return await embedOne(ctx.embedder, query);
    } catch (err) {
      ctx.log.warn({ err, model: ctx.embedder.model }, 'embedder failed; searching text only');
      return null;
    }
  }

  function log(
    p: SearchParams,
    normalized: string,
    programId: string,
    results: SearchResult[],
    extra: { cacheHit: boolean; degraded: boolean; start: number },
  ) {
    const top = results[0];
    logs.add(
      {
        query: p.query,
        normalizedQuery: normalized,
        userId: p.userId ?? null,
        clientKey: clientKey({ userId: p.userId, ip: p.clientIp }),
        batchId: programId,
        resultCount: results.length,
        topResultId: top?.id ?? null,
        topSource: top?.source ?? null,
        cacheHit: extra.cacheHit,
        degraded: extra.degraded,
        latencyMs: Math.round(performance.now() - extra.start),
      },
      // A hit names the cached answer it was served from, so the log can count repeats of it in one row.
      extra.cacheHit ? results : undefined,
    );
  }

  async function searchSources(p: SearchParams & { sources: readonly SearchSource[]; modes: readonly SearchMode[] }) {
    const normalized = normalizeQuery(p.query);
    if (!normalized) throw badRequest(Code.VALIDATION_FAILED, 'query is empty', [{ path: 'body.query', message: 'must not be blank' }]);
    const programId = await resolveProgramId(ctx, p.batchId);
    const embedding = p.modes.includes('vector') ? await embedQuery(normalized) : null;
    const degraded = p.modes.includes('vector') && embedding === null;
    const results = await runHybridSearch(ctx.pool, {
      query: normalized,
      embedding,
      programId,
      sources: p.sources,
      modes: p.modes,
      efSearch: config.SEARCH_HNSW_EF_SEARCH,
      efSearchPosts: config.SEARCH_HNSW_EF_SEARCH_POSTS,
    });
    return { results, degraded, normalized, programId };
  }

  return {
    logs,
    get cacheSize() {
      return cache?.size ?? 0;
    },

    async search(p) {
      const start = performance.now();
      const normalized = normalizeQuery(p.query);
      if (!normalized) throw badRequest(Code.VALIDATION_FAILED, 'query is empty', [{ path: 'body.query', message: 'must not be blank' }]);
      // The requested program (or "default") is part of the key; a hit costs one small read (the generation).
      const key = `${p.batchId?.toLowerCase() ?? 'default'}\u0000${normalized}`;
      // The generation is read before the search runs: a write committed in between moves it past
      // the stored value, so at worst the entry is recomputed once, never served stale.
      const current = cache ? await generation.current() : null;
      const hit = cache?.get(key);
      if (hit && hit.generation === current) {
        log(p, normalized, hit.programId, hit.results, { cacheHit: true, degraded: false, start });
        return { results: hit.results };
      }
      const r = await searchSources({ ...p, sources: HYBRID_SEARCH_SOURCES, modes: ['vector', 'text'] });
      // A degraded (text-only) answer is not cached: the next request should get the full ranking.
      if (current !== null && !r.degraded) cache?.set(key, { programId: r.programId, results: r.results, generation: current });
      log(p, normalized, r.programId, r.results, { cacheHit: false, degraded: r.degraded, start });
      return r.degraded ? { results: r.results, degraded: true } : { results: r.results };
    },

    async searchSources(p) {
      const start = performance.now();
      const r = await searchSources(p);
      // People search here too (GET /search, /faq/search, /community/search): their searches count in
      // the analytics, trending and suggestions like POST /search's (not cached, so never a hit).
      if (p.log !== false) log(p, r.normalized, r.programId, r.results, { cacheHit: false, degraded: r.degraded, start });
      return r.degraded ? { results: r.results, degraded: true } : { results: r.results };
    },

    async checkDuplicate(p) {
      const normalized = normalizeQuery(p.query);
      // Characters as a person counts them: code points of the composed (NFC) text, so an emoji is one,
      // not two UTF-16 units, and an accent typed as a combining mark is one with its letter.
      if ([...normalized.normalize('NFC')].length < DUPLICATE_MIN_CHARS) {
        throw badRequest(Code.QUERY_TOO_SHORT, `query must be at least ${DUPLICATE_MIN_CHARS} characters`, [
          { path: 'body.query', message: `must be at least ${DUPLICATE_MIN_CHARS} characters` },
        ]);
      }
      const programId = await resolveProgramId(ctx, p.batchId);
      // No text fallback here: the check is a similarity threshold, so without a vector it cannot answer.
      const embedding = await embedQuery(normalized);
      if (!embedding) throw unavailable(Code.EMBEDDER_UNAVAILABLE, 'the embedding model is not available; try again shortly');
      // A FAQ asked word for word that the worker has not embedded yet (created a moment ago) is a
      // candidate too, and the rule takes a word-for-word question first: it is the duplicate whatever
      // its score, as an embedded one would be, even over a close embedded neighbour. Read before the
      // vector search, so a FAQ whose embedding commits in between is in one of the two reads.
      const [pending] = await unembeddedSameQuestion(ctx.pool, programId, [normalized]);
      const found = await runHybridSearch(ctx.pool, {
        query: normalized,
        embedding,
        programId,
        sources: ['faq'],
        modes: ['vector'],
        filter: false,
        efSearch: config.SEARCH_HNSW_EF_SEARCH,
      });
      const candidates: DuplicateCandidate[] = [...found];
      if (pending && !found.some((c) => c.id === pending.id)) {
        // Its score is the one the search will report once the job has run: its text embedded here as the job would.
        const vector = await embedOne(ctx.embedder, embeddingText('faqs', pending.title, pending.answer));
        candidates.push({ id: pending.id, title: pending.title, vectorScore: cosineSimilarity(embedding, vector) });
      }
      const faq = pickDuplicate(normalized, candidates);
      return faq ? { matched: true, faq: { id: faq.id, question: faq.title }, vectorScore: faq.vectorScore } : { matched: false };
    },

    async close() {
      await generation.close();
      await logs.stop();
    },
  };
}
