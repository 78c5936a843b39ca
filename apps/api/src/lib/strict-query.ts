import { Type as T } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import { IgnoredBatchId } from './schemas.js';

/**
 * What a route without a query schema takes in its query string. A read takes `batchId` and ignores it
 * (its item, or the caller, decides the program), so a client that sends its program on every read is
 * not refused; a write takes nothing: `POST /faq?batchId=...` created the FAQ in the default program
 * with a 201 (writes name their program in the body, or in a query schema of their own).
 */
const READ_QUERY = T.Object({ batchId: IgnoredBatchId }, { additionalProperties: false });
const WRITE_QUERY = T.Object({}, { additionalProperties: false });

const isRead = (method: RouteOptions['method']) => (Array.isArray(method) ? method : [method]).every((m) => m === 'GET' || m === 'HEAD');

/**
 * Every route says what it does with a query parameter it does not name. Left unsaid, a misspelt filter
 * (`?stauts=failed`) was ignored and the whole list answered, while most routes answered 400 naming it.
 * A query schema must set `additionalProperties` (an unset one stops the app at registration): `false`,
 * or `true` on purpose where another party adds parameters (the OAuth callback, RFC 6749 §4.1.2). A
 * route without one gets READ_QUERY or WRITE_QUERY, except the provider's webhook (its URL is the
 * provider's to configure) and the API docs (their UI adds its own parameters).
 */
export function refuseLooseQuery(route: RouteOptions, url: string, access: string): void {
  const query = route.schema?.querystring as { type?: unknown; additionalProperties?: unknown } | undefined;
  if (query === undefined) {
    if (access === 'provider' || url.startsWith('/api/docs') || route.method === 'OPTIONS') return;
    route.schema = { ...(route.schema ?? {}), querystring: isRead(route.method) ? READ_QUERY : WRITE_QUERY };
    return;
  }
  if (query.type !== 'object' || query.additionalProperties !== undefined) return;
  throw new Error(
    `route ${String(route.method)} ${url}: its querystring schema must set additionalProperties (false to refuse unknown parameters)`,
  );
}
