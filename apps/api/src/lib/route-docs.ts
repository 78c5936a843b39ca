import type { RouteOptions } from 'fastify';
import type { Access } from './access.js';
import { problemResponses } from './problem.js';
import { takesProgramQuery } from './program-param.js';

/**
 * What the registration hook writes into every documented route's schema, from what it knows of
 * the route (its access level, its input schemas, its rate limit), so route files list only the
 * statuses that are theirs (404, 409, 422, ...):
 * - 400 on every route: the input guard (plugins/input-guard.ts) refuses a NUL character in any
 *   route's query, path or body with 400 VALIDATION_FAILED, before the route's schemas (if any) run,
 *   and on the methods whose body Fastify parses (POST, PUT, PATCH, DELETE) a body that is not valid
 *   JSON is 400 INVALID_JSON even where the route reads none;
 * - 413 and 415 on those same methods: a body over the size limit (BODY_LIMIT_BYTES, or the route's
 *   own) is 413, a media type no parser takes (`text/plain`) or a malformed content-type is 415, before
 *   the route's own code runs, so a body-less write such as an upvote answers them too;
 * - 409 on POST, PUT, PATCH and DELETE (the writes): a row the write refers to, deleted while the
 *   request ran, is 409 REFERENCE_GONE from the error handler (plugins/problem.ts), whatever the route;
 * - 401 and 403 on signed-in routes (no, bad or expired token; suspended, wrong role, admin without 2FA);
 * - 429 wherever a rate limiter applies (every route unless `config.rateLimit: false`);
 * - 503 on every route: DATABASE_UNAVAILABLE (any route reads the database, a public one too when a
 *   token is sent) and SHUTTING_DOWN (a request arriving while the server closes, plugins/problem.ts);
 * - 404 where the query takes a `batchId` (an unknown or deleted program, program-param.ts);
 * - `security`: the bearer scheme on signed-in routes, the provider's signature on provider routes,
 *   the bearer scheme as optional (`[{}, {bearerAuth: []}]`) on public ones: the auth hook resolves
 *   the caller of every public route whenever a token is sent (plugins/auth.ts), the route may read it
 *   (`actorOf`: a staff member sees more) and the rate limiter keys by it, so clients should send it;
 *   a route's own `schema.security` is kept;
 * - `operationId`: camelCase from method and path (`GET /api/faq/:id` → `getFaqById`) unless the
 *   route gives one; unique, or the app refuses to start;
 * - an optional body where `{}` is a valid one (see `optionalBody`): the route reads an absent body as
 *   `{}`, and the document says `requestBody.required: false` (plugins/openapi.ts).
 * A status the route lists itself keeps the route's own entry (its body shape, its description).
 */
export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token from POST /api/auth/login, /auth/register, /auth/refresh or /auth/2fa/verify.',
  },
  providerSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-zm-signature',
    description:
      'The meeting provider signs each webhook: x-zm-signature = v0=<hex HMAC-SHA256(CONF_WEBHOOK_SECRET_TOKEN, ' +
      '"v0:" + x-zm-request-timestamp + ":" + raw body)>, compared in constant time; a timestamp more than 300 s ' +
      'away is refused (401 INVALID_SIGNATURE).',
  },
} as const;

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  // Anonymous, or signed in when a token is sent: a bad or expired token is taken as anonymous, never refused.
  public: [{}, { bearerAuth: [] }],
  user: [{ bearerAuth: [] }],
  staff: [{ bearerAuth: [] }],
  admin: [{ bearerAuth: [] }],
  provider: [{ providerSignature: [] }],
};

/**
 * The methods whose body Fastify reads and parses (its `bodywith` set; GET, HEAD and TRACE bodies are
 * never read), so the ones that can answer 413 and 415.
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY']);

/** The methods that write, so the ones that can answer 409 REFERENCE_GONE (a foreign key refusing the write). */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `GET /api/faq/:id/history` → `getFaqByIdHistory`; hyphens and underscores fold into camelCase. */
export function operationIdFor(method: string, url: string): string {
  const words = url
    .replace(/^\/api(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      if (segment === '*') return 'Any';
      const param = /^:(\w+)/.exec(segment);
      if (param) return `By${pascal(param[1] as string)}`;
      return segment
        .split(/[-_.]+/)
        .filter(Boolean)
        .map(pascal)
        .join('');
    });
  return method.toLowerCase() + words.join('');
}

/**
 * The operation extension that marks an optional request body. @fastify/swagger copies `x-` keys of a
 * route's schema onto its operation but always writes `requestBody.required: true`; the openapi
 * plugin turns the mark into `required: false` and drops it.
 */
export const OPTIONAL_BODY = 'x-optional-body';

/**
 * Whether an empty object is a valid body: an object schema with no required property and no
 * `minProperties`. Such a body can as well be left out (`POST /community/posts/:id/convert` takes the
 * answer from the post), so an absent one is read as `{}` rather than refused.
 */
export function optionalBody(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const { type, required, minProperties } = body as { type?: unknown; required?: unknown[]; minProperties?: number };
  return type === 'object' && (required?.length ?? 0) === 0 && !minProperties;
}

/** The body of a write that takes none: nothing, or an empty JSON object. */
const NO_BODY = { type: 'object', properties: {}, additionalProperties: false, description: 'no body (or an empty object)' };

/** An absent body (none sent, or an empty JSON one: app.ts) becomes `{}` before validation; `null` is still refused. */
async function absentBodyAsEmpty(request: { body: unknown }): Promise<void> {
  if (request.body === undefined) request.body = {};
}

type Schema = NonNullable<RouteOptions['schema']> & {
  operationId?: string;
  security?: unknown;
  hide?: boolean;
  response?: Record<string | number, unknown>;
};

/**
 * Completes a route's OpenAPI entry (see above). `seen` collects the operation ids given so far.
 * Never mutates the route's own schema object: Fastify copies the original options for the HEAD
 * twin of a GET route.
 */
export function documentRoute(route: RouteOptions & { path?: string }, access: Access, seen: Set<string>): void {
  const declared = route.schema as Schema | undefined;
  const writes = (Array.isArray(route.method) ? route.method : [route.method]).some((m) => WRITE_METHODS.has(m.toUpperCase()));
  // A write that takes no body (votes, resolve, verify, read-all, archive...) takes none: a body sent
  // anyway is refused naming its field, instead of silently ignored (`{"value": -1}` on an upvote
  // upvoted). The provider's webhook reads its raw bytes and keeps its own rules.
  const schema = declared && !declared.body && writes && access !== 'provider' ? { ...declared, body: NO_BODY } : declared;
  if (schema !== declared) route.schema = schema;
  const bodyOptional = optionalBody(schema?.body);
  if (bodyOptional) {
    // First, so the route's own preValidation hooks see the `{}` its handler gets.
    const own = route.preValidation;
    route.preValidation = [absentBodyAsEmpty, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
  }
  if (!schema || schema.hide) return;
  const method = Array.isArray(route.method) ? route.method.join('') : route.method;
  const url = route.url ?? route.path ?? '';
  const operationId = schema.operationId ?? operationIdFor(method, url);
  if (seen.has(operationId)) throw new Error(`route ${method} ${url}: operationId ${operationId} is already taken`);
  seen.add(operationId);

  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
  const parsesBody = methods.some((m) => BODY_METHODS.has(m));
  const statuses: number[] = [];
  // Every route: the input guard's NUL check reads the query of any route (`GET /api/health?x=%00`).
  statuses.push(400);
  if (access === 'user' || access === 'staff' || access === 'admin') statuses.push(401, 403);
  if (methods.some((m) => WRITE_METHODS.has(m))) statuses.push(409);
  if (parsesBody) statuses.push(413, 415);
  if (route.config?.rateLimit !== false) statuses.push(429);
  statuses.push(503);
  // An unknown or deleted program named by the query's batchId (program-param.ts).
  if (takesProgramQuery(route)) statuses.push(404);
  route.schema = {
    ...schema,
    operationId,
    security: schema.security ?? SECURITY[access],
    ...(bodyOptional ? { [OPTIONAL_BODY]: true } : {}),
    // The route's own entries last: a status it lists (a 503 with its own body, a described 409) is kept as it is.
    response: { ...problemResponses(...statuses), ...(schema.response ?? {}) },
  };
}
