import type { RouteOptions } from 'fastify';

/**
 * A query string schema must say what it does with a parameter it does not name. Left unsaid, a
 * misspelt filter (`?stauts=failed`) was ignored and the whole list answered, while most routes
 * answered 400 naming it. So an undeclared choice stops the app at registration: routes set
 * `additionalProperties: false`, or `true` on purpose where another party adds parameters (the
 * OAuth callback, RFC 6749 §4.1.2).
 */
export function refuseLooseQuery(route: RouteOptions, url: string): void {
  const query = route.schema?.querystring as { type?: unknown; additionalProperties?: unknown } | undefined;
  if (query === undefined || query.type !== 'object' || query.additionalProperties !== undefined) return;
  throw new Error(
    `route ${String(route.method)} ${url}: its querystring schema must set additionalProperties (false to refuse unknown parameters)`,
  );
}
