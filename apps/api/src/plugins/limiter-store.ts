import { createRequire } from 'node:module';
import type { SharedCounters } from '@cfaq/core';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
type LocalCtor = new (continueExceeding?: boolean, exponentialBackoff?: boolean, cache?: number) => FastifyRateLimitStore;

// The plugin's own in-memory store (not exported by name; its file is stable across 9.x-11.x).
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore') as LocalCtor;

/** Options of one limiter as the rate-limit plugin hands them to `child()`. */
interface ChildOptions {
  /** Set on the security limiters: counters live in PostgreSQL under this name. */
  shared?: string;
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  cache?: number;
  /** The plugin's `groupId`: routes that are one function (aliases, POST or PATCH) share one budget. */
  groupId?: string;
  routeInfo?: { method?: string | string[]; url?: string };
}

/**
 * The rate-limit plugin's store: a limiter marked `shared` counts in PostgreSQL (every API process
 * on the database sees the same counters), every other limiter, the per-request burst limiter
 * included, in this process's memory. Each route keeps its own counters (the route is part of the
 * key), except the routes of one `groupId` (two spellings or methods of one function, which must not
 * get twice its budget: they count under the group) and limiters made with `createRateLimit`, which
 * are shared by every caller.
 */
export function limiterStore(counters: SharedCounters): FastifyRateLimitStoreCtor {
  // The in-memory stores of the groups: every route of a group counts in the same one.
  const localGroups = new Map<string, FastifyRateLimitStore>();
  class LimiterStore {
    private readonly local: FastifyRateLimitStore | null;
    private readonly namespace: string | null;

    constructor(options: ChildOptions) {
      if (options.shared) {
        const route = options.groupId
          ? `group:${options.groupId}`
          : options.routeInfo?.url
            ? `${[options.routeInfo.method].flat().join(',')} ${options.routeInfo.url}`
            : '*';
        this.namespace = `${options.shared}|${route}|`;
        this.local = null;
      } else {
        this.namespace = null;
        const group = options.groupId;
        const existing = group ? localGroups.get(group) : undefined;
        this.local = existing ?? new LocalStore(options.continueExceeding, options.exponentialBackoff, options.cache);
        if (group && !existing) localGroups.set(group, this.local);
      }
    }

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      if (this.local) {
        this.local.incr(key, callback, timeWindow, max);
        return;
      }
      counters.incr(this.namespace + key, timeWindow).then(
        (state) => callback(null, state),
        (err: Error) => callback(err),
      );
    }

    child(routeOptions: ChildOptions): FastifyRateLimitStore {
      return new LimiterStore(routeOptions) as unknown as FastifyRateLimitStore;
    }
  }
  return LimiterStore as unknown as FastifyRateLimitStoreCtor;
}
