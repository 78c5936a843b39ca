import { faqs, searchLogs, unresolvedSearches } from '@cfaq/db/schema/index';
import { and, count, desc, eq, gte, ne, type SQL, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { Code, notFound, unprocessable } from '../errors/index.js';
import { PUBLIC_REVIEW_STATUSES } from '../faqs/visibility.js';
import { inLiveProgram } from '../programs/live.js';
import { lockProgramForWrite } from '../programs/lock.js';
import { resolveProgramId } from '../programs/resolve.js';
import { DAY_MS } from '../runtime/clock.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { toDate } from '../shared/shape.js';
import { searchClientKey } from './client-key.js';
import { normalizeQuery } from './service.js';
import type {
  LoggedUnresolvedSearch,
  Suggestion,
  SuggestResponse,
  TrendingResponse,
  UnresolvedSearchItem,
  UnresolvedStats,
} from './shape.js';

type Ctx = Pick<CoreContext, 'db' | 'clock' | 'config'>;

/**
 * A logged query is published (suggestions, trending, the public unresolved list) only once this
 * many distinct users or clients searched it, so one person cannot plant text there, and nothing
 * one person typed ("my ssn is ...") reaches anyone else.
 */
const searchedByEnough = (ctx: Pick<CoreContext, 'config'>) =>
  sql`count(distinct ${searchLogs.clientKey}) >= ${ctx.config.SEARCH_SUGGEST_MIN_USERS}`;

/** Searches in a group of search-log rows: a row can stand for several cache hits (its `count`). */
const searchCount = () => sql<number>`sum(${searchLogs.count})::int`.mapWith(Number);

/**
 * The most searched normalised queries of a program over the last `days` days (search log), among
 * those SEARCH_SUGGEST_MIN_USERS distinct users or clients searched.
 */
export async function trendingSearches(
  ctx: Ctx,
  p: { batchId?: string | undefined; days?: number } & PageQuery,
): Promise<TrendingResponse> {
  const programId = await resolveProgramId(ctx, p.batchId);
  const since = new Date(ctx.clock.now().getTime() - (p.days ?? 7) * DAY_MS);
  const w = pageWindow(p);
  const n = searchCount();
  const grouped = ctx.db
    .select({
      query: searchLogs.normalizedQuery,
      count: n.as('searches'),
      last: sql<Date>`max(${searchLogs.createdAt})`.as('last_searched'),
    })
    .from(searchLogs)
    .where(and(eq(searchLogs.batchId, programId), gte(searchLogs.createdAt, since)))
    .groupBy(searchLogs.normalizedQuery)
    .having(searchedByEnough(ctx))
    .as('trending');
  // One statement: the page of queries and how many there are in all (a list like every other).
  const rows = await ctx.db
    .select({ query: grouped.query, count: grouped.count, last: grouped.last, total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(grouped)
    .orderBy(desc(grouped.count), grouped.query)
    .limit(w.limit)
    .offset(w.offset);
  // Past the last page the window has no row to carry the total: count the groups then.
  const total = rows[0]?.total ?? (w.offset > 0 ? ((await ctx.db.select({ n: count() }).from(grouped))[0]?.n ?? 0) : 0);
  return toPage(
    rows.map((r) => ({ query: r.query, count: Number(r.count), lastSearchedAt: toDate(r.last) })),
    total,
    w,
  );
}

const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Typeahead: FAQ questions where a word starts with the prefix (publicly visible FAQs of the
 * program, most viewed first), then popular past queries starting with it (last 30 days) that at
 * least SEARCH_SUGGEST_MIN_USERS distinct users or clients searched.
 */
export async function suggestSearches(ctx: Ctx, p: { q: string; batchId?: string | undefined; limit?: number }): Promise<SuggestResponse> {
  const prefix = normalizeQuery(p.q);
  const limit = p.limit ?? 8;
  const programId = await resolveProgramId(ctx, p.batchId);
  const pattern = likePrefix(prefix);
  const faqRows = await ctx.db
    .select({ id: faqs.id, question: faqs.question })
    .from(faqs)
    .where(
      and(
        eq(faqs.batchId, programId),
        ne(faqs.reviewStatus, 'draft'),
        sql`(lower(${faqs.question}) LIKE ${pattern} OR lower(${faqs.question}) LIKE ${`% ${pattern}`})`,
      ),
    )
    .orderBy(desc(faqs.viewCount), faqs.question)
    .limit(limit);
  const since = new Date(ctx.clock.now().getTime() - 30 * DAY_MS);
  const n = searchCount();
  const queryRows = await ctx.db
    .select({ query: searchLogs.normalizedQuery, n })
    .from(searchLogs)
    .where(and(eq(searchLogs.batchId, programId), gte(searchLogs.createdAt, since), sql`${searchLogs.normalizedQuery} LIKE ${pattern}`))
    .groupBy(searchLogs.normalizedQuery)
    .having(searchedByEnough(ctx))
    .orderBy(desc(n), searchLogs.normalizedQuery)
    .limit(limit);
  const seen = new Set<string>();
  const suggestions: Suggestion[] = [];
  for (const r of faqRows) {
    seen.add(normalizeQuery(r.question));
    suggestions.push({ text: r.question, source: 'faq', faqId: r.id });
  }
  for (const r of queryRows) {
    if (suggestions.length >= limit) break;
    if (seen.has(r.query)) continue;
    suggestions.push({ text: r.query, source: 'query', faqId: null });
  }
  return { suggestions: suggestions.slice(0, limit) };
}

const unresolvedColumns = {
  id: unresolvedSearches.id,
  query: unresolvedSearches.query,
  normalizedQuery: unresolvedSearches.normalizedQuery,
  count: unresolvedSearches.count,
  status: unresolvedSearches.status,
  batchId: unresolvedSearches.batchId,
  resolvedFaqId: unresolvedSearches.resolvedFaqId,
  resolvedBy: unresolvedSearches.resolvedBy,
  resolvedAt: unresolvedSearches.resolvedAt,
  lastSeenAt: unresolvedSearches.lastSeenAt,
  createdAt: unresolvedSearches.createdAt,
};

type UnresolvedRow = Omit<UnresolvedSearchItem, 'resolvedAt' | 'lastSeenAt' | 'createdAt'> & {
  resolvedAt: Date | null;
  lastSeenAt: Date;
  createdAt: Date;
};

const toItem = (r: UnresolvedRow): UnresolvedSearchItem => ({
  ...r,
  resolvedAt: r.resolvedAt ?? null,
  lastSeenAt: r.lastSeenAt,
  createdAt: r.createdAt,
});

/**
 * Logs a search that found nothing useful: one open row per program and normalised query, whose
 * count goes up atomically on every repeat (upsert on the partial unique index over open rows). Both
 * dates come from the app's clock (the database's own `now()` could date the row after its last sighting).
 * The answer shows the shared row only as far as it reveals nobody else's searches (LoggedUnresolvedSearchShape).
 */
export async function logUnresolvedSearch(
  ctx: Ctx,
  p: {
    query: string;
    batchId?: string | undefined;
    userId?: string | null;
    clientIp?: string | null | undefined;
    viewerIsAdmin?: boolean;
  },
): Promise<LoggedUnresolvedSearch> {
  const now = ctx.clock.now();
  const key = searchClientKey(ctx.config.JWT_SECRET ?? '', { userId: p.userId, ip: p.clientIp });
  const keys = key ? sql`ARRAY[${key}]::text[]` : sql`'{}'::text[]`;
  // The program locked as every write locks it: a delete racing the log is seen (404, no row).
  const { row, searchers } = await ctx.db.transaction(async (tx) => {
    const programId = await lockProgramForWrite(tx, p.batchId);
    // client_keys gathers distinct searchers up to 16 (enough to tell any sane minimum).
    const inserted = await tx.execute<{ id: string }>(sql`
    INSERT INTO unresolved_searches (query, normalized_query, batch_id, user_id, created_at, last_seen_at, client_keys)
    VALUES (${p.query.trim()}, ${normalizeQuery(p.query)}, ${programId}, ${p.userId ?? null}, ${now}, ${now}, ${keys})
    ON CONFLICT (coalesce(batch_id, '00000000-0000-0000-0000-000000000000'::uuid), normalized_query) WHERE status = 'open'
    DO UPDATE SET count = unresolved_searches.count + 1, last_seen_at = EXCLUDED.last_seen_at,
      client_keys = CASE
        WHEN cardinality(unresolved_searches.client_keys) >= 16 OR EXCLUDED.client_keys <@ unresolved_searches.client_keys
        THEN unresolved_searches.client_keys
        ELSE unresolved_searches.client_keys || EXCLUDED.client_keys END
    RETURNING id`);
    const id = inserted.rows[0]?.id as string;
    const [found] = await tx
      .select({ ...unresolvedColumns, clientKeys: unresolvedSearches.clientKeys })
      .from(unresolvedSearches)
      .where(eq(unresolvedSearches.id, id));
    const { clientKeys, ...item } = found as UnresolvedRow & { clientKeys: string[] };
    return { row: toItem(item), searchers: clientKeys };
  });
  // Before publication a non-admin gets the same answer whether or not anyone else logged the query:
  // figures shown only to its sole searcher would tell a guesser, by their absence, that someone had.
  const published = searchers.length >= ctx.config.SEARCH_SUGGEST_MIN_USERS;
  const own = { id: row.id, normalizedQuery: row.normalizedQuery, status: row.status, batchId: row.batchId };
  if (p.viewerIsAdmin || published) {
    return { ...own, query: row.query, count: row.count, lastSeenAt: row.lastSeenAt, createdAt: row.createdAt };
  }
  return { ...own, query: p.query.trim() };
}

async function listUnresolved(ctx: Ctx, where: SQL | undefined, q: PageQuery): Promise<Page<UnresolvedSearchItem>> {
  const w = pageWindow(q);
  const rows = await ctx.db
    .select(unresolvedColumns)
    .from(unresolvedSearches)
    .where(where)
    .orderBy(desc(unresolvedSearches.count), desc(unresolvedSearches.lastSeenAt), unresolvedSearches.id)
    .limit(w.limit)
    .offset(w.offset);
  const [total] = await ctx.db.select({ n: count() }).from(unresolvedSearches).where(where);
  return toPage(rows.map(toItem), total?.n ?? 0, w);
}

/**
 * GET /search/unresolved: the program's open unresolved searches, most frequent first, among those
 * SEARCH_SUGGEST_MIN_USERS distinct users or clients logged (the admin list shows them all).
 */
export async function listOpenUnresolved(ctx: Ctx, p: PageQuery & { batchId?: string | undefined }) {
  const programId = await resolveProgramId(ctx, p.batchId);
  return listUnresolved(
    ctx,
    and(
      eq(unresolvedSearches.batchId, programId),
      eq(unresolvedSearches.status, 'open'),
      sql`cardinality(${unresolvedSearches.clientKeys}) >= ${ctx.config.SEARCH_SUGGEST_MIN_USERS}`,
    ),
    p,
  );
}

/** Admin list: every program unless filtered, open and resolved unless filtered. */
export async function adminListUnresolved(
  ctx: Ctx,
  p: PageQuery & { batchId?: string | undefined; status?: 'open' | 'resolved' | undefined },
) {
  const programId = p.batchId ? await resolveProgramId(ctx, p.batchId, { allowArchived: true }) : undefined;
  const where = and(
    programId ? eq(unresolvedSearches.batchId, programId) : inLiveProgram(sql`unresolved_searches.batch_id`, { nullable: true }),
    p.status ? eq(unresolvedSearches.status, p.status) : undefined,
  );
  return listUnresolved(ctx, where, p);
}

export async function unresolvedStats(ctx: Ctx, p: { batchId?: string | undefined }): Promise<UnresolvedStats> {
  const programId = p.batchId ? await resolveProgramId(ctx, p.batchId, { allowArchived: true }) : undefined;
  const scope = programId
    ? eq(unresolvedSearches.batchId, programId)
    : inLiveProgram(sql`unresolved_searches.batch_id`, { nullable: true });
  const weekAgo = new Date(ctx.clock.now().getTime() - 7 * DAY_MS);
  const [s] = await ctx.db
    .select({
      open: sql<number>`count(*) FILTER (WHERE ${unresolvedSearches.status} = 'open')::int`,
      resolved: sql<number>`count(*) FILTER (WHERE ${unresolvedSearches.status} = 'resolved')::int`,
      openSearches: sql<number>`coalesce(sum(${unresolvedSearches.count}) FILTER (WHERE ${unresolvedSearches.status} = 'open'), 0)::int`,
      resolvedLast7Days: sql<number>`count(*) FILTER (WHERE ${unresolvedSearches.resolvedAt} >= ${weekAgo})::int`,
    })
    .from(unresolvedSearches)
    .where(scope);
  const top = await ctx.db
    .select({ id: unresolvedSearches.id, query: unresolvedSearches.query, count: unresolvedSearches.count })
    .from(unresolvedSearches)
    .where(and(scope, eq(unresolvedSearches.status, 'open')))
    .orderBy(desc(unresolvedSearches.count), unresolvedSearches.id)
    .limit(10);
  return {
    open: s?.open ?? 0,
    resolved: s?.resolved ?? 0,
    openSearches: s?.openSearches ?? 0,
    resolvedLast7Days: s?.resolvedLast7Days ?? 0,
    top,
  };
}

/**
 * Closes an open unresolved search (one conditional UPDATE), linking the FAQ that answers it when
 * one is named; resolving without one is common (answered elsewhere, not a real question).
 */
export async function resolveUnresolvedSearch(
  ctx: Ctx,
  p: { id: string; faqId?: string | undefined; adminId: string },
): Promise<UnresolvedSearchItem> {
  if (p.faqId) {
    // The FAQ that answers it: one of the search's own program that its searchers can read.
    const [faq] = await ctx.db
      .select({ batchId: faqs.batchId, reviewStatus: faqs.reviewStatus })
      .from(faqs)
      .where(eq(faqs.id, p.faqId))
      .limit(1);
    if (!faq) throw notFound('FAQ', Code.FAQ_NOT_FOUND);
    const [search] = await ctx.db
      .select({ batchId: unresolvedSearches.batchId })
      .from(unresolvedSearches)
      .where(eq(unresolvedSearches.id, p.id));
    if (search?.batchId && faq.batchId !== search.batchId) {
      throw unprocessable(Code.FAQ_OTHER_PROGRAM, "The FAQ belongs to another program than the search; link one of the search's program");
    }
    if (!(PUBLIC_REVIEW_STATUSES as readonly string[]).includes(faq.reviewStatus)) {
      throw unprocessable(Code.FAQ_NOT_PUBLISHED, 'A draft FAQ answers nobody yet; publish it first, or resolve without it');
    }
  }
  const [row] = await ctx.db
    .update(unresolvedSearches)
    .set({ status: 'resolved', resolvedFaqId: p.faqId ?? null, resolvedBy: p.adminId, resolvedAt: ctx.clock.now() })
    .where(and(eq(unresolvedSearches.id, p.id), eq(unresolvedSearches.status, 'open')))
    .returning(unresolvedColumns);
  if (row) return toItem(row);
  const [exists] = await ctx.db.select({ id: unresolvedSearches.id }).from(unresolvedSearches).where(eq(unresolvedSearches.id, p.id));
  if (!exists) throw notFound('Unresolved search', Code.UNRESOLVED_SEARCH_NOT_FOUND);
  throw unprocessable(Code.ALREADY_RESOLVED, 'this unresolved search is already resolved');
}
