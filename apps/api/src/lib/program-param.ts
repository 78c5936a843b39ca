import { resolveProgramId } from '@cfaq/core';
import type { FastifyInstance, preHandlerAsyncHookHandler, RouteOptions } from 'fastify';

/** Whether the route's query takes a `batchId` (a program filter or target). */
export function takesProgramQuery(route: RouteOptions): boolean {
  const query = route.schema?.querystring as { properties?: Record<string, { format?: unknown }> } | undefined;
  // A uuid names a program; an item's page takes any batchId and ignores it (ItemPageQuery, READ_QUERY).
  return query?.properties?.batchId?.format === 'uuid';
}

/**
 * A `batchId` in the query names a program: an unknown or deleted one is 404 PROGRAM_NOT_FOUND on the
 * staff and admin routes that take it, before the route runs (public and signed-in reads resolve theirs). Without this, a list filtered by it answered an empty
 * page, or a deleted program's rows. Archived programs pass: routes that hide them from the public
 * refuse them themselves (with the same 404).
 */
export function programQueryCheck(app: FastifyInstance): preHandlerAsyncHookHandler {
  return async (request) => {
    const batchId = (request.query as { batchId?: unknown } | undefined)?.batchId;
    if (typeof batchId === 'string') await resolveProgramId(app.ctx, batchId, { allowArchived: true });
  };
}
