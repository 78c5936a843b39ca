export interface PageQuery {
  page?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** The deepest page a list serves (10,000 pages of up to 100 rows); deeper pages are a 400, not a huge OFFSET. */
export const MAX_PAGE = 10_000;

/** Normalises page (from 1) and limit (1-100, default 20) and gives the row offset. */
export function pageWindow(q: PageQuery): { page: number; limit: number; offset: number } {
  const page = Math.min(MAX_PAGE, Math.max(1, Math.floor(q.page ?? 1)));
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(q.limit ?? DEFAULT_LIMIT)));
  return { page, limit, offset: (page - 1) * limit };
}

export const toPage = <T>(items: T[], total: number, w: { page: number; limit: number }): Page<T> => ({
  items,
  total,
  page: w.page,
  limit: w.limit,
});
