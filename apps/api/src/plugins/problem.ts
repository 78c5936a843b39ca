import { AppError, Code, databaseUnavailable, type ErrorCode, isErrorCode, pgErrorOf } from '@cfaq/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Problem, type ProblemBody, problem } from '../lib/problem.js';
import { EMAIL_PATTERN } from '../lib/schemas.js';

interface AjvError {
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  /** The failing keyword's own schema (Ajv's `verbose`): `{const: 0}` for a `not`. */
  schema?: unknown;
}

const CONTEXT_NAMES: Record<string, string> = { querystring: 'query', body: 'body', params: 'params', headers: 'headers' };

/** "body.email", "query.limit", "params.id": where in the request the field is. */
export function fieldPath(context: string | undefined, e: AjvError): string {
  const base = CONTEXT_NAMES[context ?? 'body'] ?? context ?? 'body';
  const segments = (e.instancePath ?? '').split('/').filter(Boolean);
  if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') segments.push(e.params.missingProperty);
  if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
    segments.push(e.params.additionalProperty);
  }
  return [base, ...segments].join('.');
}

function fieldMessage(e: AjvError): string {
  if (e.keyword === 'required') return 'is required';
  // The path already names the unknown field; Ajv's "must NOT have additional properties" read as if
  // that field had members too many.
  if (e.keyword === 'additionalProperties') return 'is not a field this route takes';
  // `not: {const: 0}` (non-zero points): Ajv says "must NOT be valid".
  if (e.keyword === 'not' && typeof e.schema === 'object' && e.schema !== null && 'const' in e.schema) {
    return `must not be ${JSON.stringify((e.schema as { const: unknown }).const)}`;
  }
  // A single allowed value names it (Ajv says "must be equal to constant").
  if (e.keyword === 'const' && e.params && 'allowedValue' in e.params) return `must be ${JSON.stringify(e.params.allowedValue)}`;
  if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
    return `must be one of: ${(e.params.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
  }
  if (e.keyword === 'pattern' && e.params?.pattern === EMAIL_PATTERN)
    return 'must be an e-mail address (name@domain.tld) without spaces, control or invisible characters';
  // The visible-text rule (lib/schemas.ts) in words, not as its regular expression.
  const visible = e.keyword === 'pattern' && typeof e.params?.pattern === 'string' ? /\]\*\)\{(\d+)\}$/.exec(e.params.pattern) : null;
  if (visible)
    return `must hold at least ${visible[1]} visible character${visible[1] === '1' ? '' : 's'} (spaces and invisible characters do not count)`;
  return e.message ?? 'is invalid';
}

/**
 * The values a failed union branch allows when the branch is a literal (`{const}` or `{enum}`, with
 * its `type`) or `null`; undefined when the branch is anything else (a number, an object, ...).
 */
function literalBranch(errors: AjvError[]): unknown[] | undefined {
  const values: unknown[] = [];
  let literal = false;
  for (const e of errors) {
    if (e.keyword === 'const') {
      values.push(e.params?.allowedValue);
      literal = true;
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      values.push(...(e.params.allowedValues as unknown[]));
      literal = true;
    } else if (e.keyword !== 'type') return undefined;
  }
  if (literal) return values;
  // A branch that failed on its type alone: `null` (Nullable), or a type with no listed value.
  return errors.length === 1 && errors[0]?.params?.type === 'null' ? [null] : undefined;
}

/** The `anyOf` errors, innermost union first (so an inner union is folded before the one holding it). */
const unionsInnermostFirst = (errors: readonly AjvError[]) =>
  errors
    .filter((e) => e.keyword === 'anyOf' && e.schemaPath)
    .sort((a, b) => (b.schemaPath as string).length - (a.schemaPath as string).length);

/** A union's errors by branch (the index after its schema path); `within` says which errors belong to it. */
function unionBranches(errors: readonly AjvError[], union: AjvError, within: (e: AjvError) => boolean) {
  const prefix = `${union.schemaPath}/`;
  const inBranches = errors.filter((e) => e !== union && e.schemaPath?.startsWith(prefix));
  if (inBranches.length === 0 || !inBranches.every(within)) return null;
  const branches = new Map<string, AjvError[]>();
  for (const e of inBranches) {
    const branch = (e.schemaPath as string).slice(prefix.length).split('/')[0] as string;
    branches.set(branch, [...(branches.get(branch) ?? []), e]);
  }
  return { inBranches, branches };
}

/**
 * A union of literals (TypeBox's `literals(...)`, `T.Union([T.Literal(...), ...])`, nullable or not)
 * fails in Ajv as one `const` error per value (plus a `type` error each when the value is not a
 * string) and one `anyOf` error: six entries for a five-value enum, none naming the values. Each such
 * union becomes one `enum` error listing the allowed values ("must be one of: a, b, c"). Unions of
 * other schemas (objects, numbers) keep their errors. Innermost unions first, so a nullable union of
 * literals folds into one error that lists null too.
 */
export function collapseLiteralUnions(errors: readonly AjvError[]): AjvError[] {
  let out = [...errors];
  for (const union of unionsInnermostFirst(out)) {
    const found = unionBranches(out, union, (e) => e.instancePath === union.instancePath);
    if (!found) continue;
    const { inBranches, branches } = found;
    const allowed: unknown[] = [];
    for (const branchErrors of branches.values()) {
      const values = literalBranch(branchErrors);
      if (!values) {
        allowed.length = 0;
        break;
      }
      allowed.push(...values);
    }
    if (allowed.length === 0) continue;
    const merged: AjvError = {
      instancePath: union.instancePath,
      schemaPath: union.schemaPath,
      keyword: 'enum',
      params: { allowedValues: [...new Set(allowed)] },
      message: 'must be equal to one of the allowed values',
    };
    const drop = new Set(inBranches);
    out = out.flatMap((e) => (e === union ? [merged] : drop.has(e) ? [] : [e]));
  }
  return out;
}

/**
 * A nullable field (TypeBox's `Nullable(x)`: `anyOf [x, null]`) given a value that is neither fails
 * in Ajv as the field's own errors, a "must be null" and a "must match a schema in anyOf": three
 * entries for one mistake, two of them misleading ("must be null" reads as if only null were
 * allowed). Such a union keeps only its non-null branch's errors; a type error there names null too
 * ("must be string or null"). Unions of literals are folded before (`collapseLiteralUnions`).
 */
export function collapseNullableUnions(errors: readonly AjvError[]): AjvError[] {
  let out = [...errors];
  for (const union of unionsInnermostFirst(out)) {
    const at = union.instancePath ?? '';
    const found = unionBranches(out, union, (e) => (e.instancePath ?? '').startsWith(at));
    if (!found || found.branches.size !== 2) continue;
    const entries = [...found.branches.values()];
    const isNull = (es: AjvError[]) =>
      es.length === 1 && es[0]?.keyword === 'type' && es[0].params?.type === 'null' && (es[0].instancePath ?? '') === at;
    const nullBranch = entries.find(isNull);
    const other = entries.find((es) => es !== nullBranch);
    if (!nullBranch || !other || isNull(other)) continue;
    const renamed = new Map(
      other
        .filter((e) => e.keyword === 'type' && (e.instancePath ?? '') === at && typeof e.params?.type === 'string')
        .map((e) => [e, { ...e, params: { ...e.params, type: `${e.params?.type},null` }, message: `must be ${e.params?.type} or null` }]),
    );
    const drop = new Set([union, ...nullBranch]);
    out = out.flatMap((e) => (drop.has(e) ? [] : [renamed.get(e) ?? e]));
  }
  return out;
}

/**
 * A union of schemas of one type (a log entry or a batch of entries, both objects) that failed keeps
 * only the errors of its closest branch: the one missing the fewest of its required keys in the value
 * itself, then the one with the fewest errors.
 * Ajv reports every branch, so `{"level":"fatal","message":"x"}` for an entry-or-batch body named
 * `message` and `entries` as wrong too, beside the one field that was. Counting errors alone is not
 * enough: `{"entries":[{},{}]}` has more errors in its entries (two missing fields each) than as a
 * single entry (level, message, and entries unknown), yet it is plainly a batch: it has the batch's key.
 */
export function closestUnionBranches(errors: readonly AjvError[]): AjvError[] {
  let out = [...errors];
  for (const union of unionsInnermostFirst(out)) {
    const at = union.instancePath ?? '';
    const found = unionBranches(out, union, (e) => (e.instancePath ?? '').startsWith(at));
    if (!found) continue;
    const { inBranches, branches } = found;
    // Only where every branch takes the value's type (objects, say): a union of a literal and an
    // integer, or of an object and null, keeps Ajv's report, which names each alternative.
    if ([...branches.values()].some((es) => es.some((e) => e.keyword === 'type' && (e.instancePath ?? '') === at))) continue;
    // A branch's required keys the value lacks show as `required` errors at the union's own path
    // (a missing key deeper in, `entries.0.message`, belongs to a value that did take the branch's shape).
    const missingKeys = (es: AjvError[]) => es.filter((e) => e.keyword === 'required' && (e.instancePath ?? '') === at).length;
    const closer = (a: AjvError[], b: AjvError[]) => missingKeys(a) - missingKeys(b) || a.length - b.length;
    const best = [...branches.values()].reduce((a, b) => (closer(b, a) < 0 ? b : a));
    const drop = new Set(inBranches.filter((e) => !best.includes(e)));
    drop.add(union);
    out = out.filter((e) => !drop.has(e));
  }
  return out;
}

/** Fastify's own client-error codes mapped to stable problem codes. */
const FASTIFY_CODES: Record<string, [number, ErrorCode]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, Code.UNSUPPORTED_MEDIA_TYPE],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, Code.PAYLOAD_TOO_LARGE],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, Code.INVALID_BODY],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, Code.INVALID_JSON],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, Code.INVALID_CONTENT_LENGTH],
  FST_ERR_INVALID_URL: [400, Code.INVALID_URL],
  FST_ERR_BAD_URL: [400, Code.INVALID_URL],
  FST_ERR_NOT_FOUND: [404, Code.NOT_FOUND],
  FST_JWT_NO_AUTHORIZATION_IN_HEADER: [401, Code.UNAUTHORIZED],
  FST_REQ_FILE_TOO_LARGE: [413, Code.PAYLOAD_TOO_LARGE],
  FST_FILES_LIMIT: [413, Code.PAYLOAD_TOO_LARGE],
  FST_PARTS_LIMIT: [413, Code.PAYLOAD_TOO_LARGE],
  FST_INVALID_MULTIPART_CONTENT_TYPE: [415, Code.UNSUPPORTED_MEDIA_TYPE],
};

/** What a 503 DATABASE_UNAVAILABLE tells the client to wait before retrying. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** At most this many field errors are listed in a problem (and named in its detail). */
export const MAX_LISTED_ERRORS = 50;

/** Every problem leaves the same way: its status, the request id, problem+json, and the path as `instance`. */
function sendProblem(request: FastifyRequest, reply: FastifyReply, body: ProblemBody) {
  return reply
    .header('x-request-id', request.id)
    .status(body.status)
    .type('application/problem+json')
    .send({ ...body, instance: request.url.split('?')[0] });
}

/**
 * The backstop code for a value PostgreSQL refused as data (SQLSTATE class 22: out-of-range numbers
 * and dates, malformed text). Route schemas are meant to refuse such values first, naming the
 * field; this answer (a 400 without a field, logged as a warning) means a schema missed one, and the
 * fuzz test fails on it.
 */
export const DATABASE_VALUE_REJECTED: ErrorCode = Code.VALUE_OUT_OF_RANGE;

/**
 * Every error leaves as application/problem+json. Client mistakes keep their 4xx status; anything
 * unexpected is logged with its stack and answered with a 500 that reveals nothing.
 */
export const problemPlugin = fp(
  async (app: FastifyInstance) => {
    app.addSchema(Problem);

    app.setErrorHandler((err: FastifyError & { validationContext?: string }, request, reply) => {
      let body: ReturnType<typeof problem>;
      const pg = pgErrorOf(err);
      if (err instanceof AppError) {
        body = problem(err.status, err.code, err.message, err.errors);
      } else if (err.validation) {
        const seen = new Set<string>();
        const errors = closestUnionBranches(collapseNullableUnions(collapseLiteralUnions(err.validation as AjvError[])))
          .map((e) => ({ path: fieldPath(err.validationContext, e), message: fieldMessage(e) }))
          .filter((e) => {
            const key = `${e.path}\u0000${e.message}`;
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          });
        // A body of thousands of unknown fields is one problem, not a megabyte-long answer: the first ones are listed.
        const listed = errors.slice(0, MAX_LISTED_ERRORS);
        const more = errors.length - listed.length;
        const detail = listed.map((e) => `${e.path} ${e.message}`).join('; ') + (more > 0 ? `; and ${more} more` : '');
        body = problem(400, Code.VALIDATION_FAILED, detail, listed);
      } else if (err.statusCode === 429) {
        body = problem(429, Code.RATE_LIMITED, err.message || 'Too many requests, retry later');
      } else if (err.code && FASTIFY_CODES[err.code]) {
        const [status, code] = FASTIFY_CODES[err.code] as [number, ErrorCode];
        body = problem(status, code, err.message);
      } else if (pg?.code === '23503') {
        // A foreign key refused the write: what it refers to was deleted between the request's checks
        // and its insert (a user deleted while their post was being written). A race, not a bug.
        // Logged with the constraint, so a real bug (a wrong id written) is told apart from the race.
        request.log.warn(
          { sqlState: pg.code, constraint: pg.constraint, route: request.routeOptions.url },
          'a referenced row was deleted meanwhile',
        );
        body = problem(409, Code.REFERENCE_GONE, 'A record this request refers to was deleted meanwhile; reload and retry');
      } else if (pg?.code.startsWith('22')) {
        request.log.warn({ sqlState: pg.code, route: request.routeOptions.url }, 'database refused a request value');
        body = problem(400, DATABASE_VALUE_REJECTED, 'A value in the request is out of range or malformed');
      } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
        // A plugin's own client error: its code when it is a registered one, else the generic one.
        body = problem(err.statusCode, isErrorCode(err.code) ? err.code : Code.BAD_REQUEST, err.message);
      } else if (databaseUnavailable(err)) {
        // Down, restarting, unreachable or out of connections: the client may come back (a load balancer
        // may send it elsewhere). One warning line per request, without a stack: the cause is outside.
        request.log.warn({ err: { message: err.message, code: err.code }, route: request.routeOptions.url }, 'database unavailable');
        reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        body = problem(503, Code.DATABASE_UNAVAILABLE, 'The database is not answering; retry shortly');
      } else {
        request.log.error({ err }, 'unhandled error');
        body = problem(500, Code.INTERNAL_ERROR, 'An unexpected error occurred');
      }
      if (body.status >= 500 && !(err instanceof AppError)) {
        /* already logged */
      } else if (body.status === 503) {
        // A known unavailability (the embedder loading, a webhook secret not set, the queue down: each
        // logged where it happens): a warning without a stack, not an error line per request. Under
        // `problem`: the logger redacts every `code` (OAuth authorization codes).
        request.log.warn({ problem: body.code, detail: body.detail }, 'service unavailable');
      } else if (body.status >= 500) {
        request.log.error({ err }, 'server error');
      }
      return sendProblem(request, reply, body);
    });

    const guard = shutdownGuard();
    app.addHook('preClose', guard.preClose);
    app.addHook('onRequest', guard.onRequest);
    app.addHook('onSend', guard.onSend);

    // Unknown routes run no route hooks: the id header and the metrics are set here.
    app.setNotFoundHandler((request, reply) => {
      const body = problem(404, Code.ROUTE_NOT_FOUND, `No route ${request.method} ${request.url.split('?')[0]}`);
      request.server.metrics?.observeUnmatched(request.method, 404, reply.elapsedTime / 1000);
      return sendProblem(request, reply, body);
    });
  },
  { name: 'problem' },
);

/**
 * Fastify's `frameworkErrors`: a URL the router refuses before any route or hook runs (a malformed
 * percent-escape, a path parameter over the router's 100-character bound). Without it Fastify answers
 * its own `{error, code}` JSON; these get the same problem+json as every other error. The bound is the
 * router's, not a field rule, so the long parameter is a 400 naming `params`.
 */
export function frameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const body =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? problem(400, Code.VALIDATION_FAILED, 'a path parameter is longer than 100 characters', [
          { path: 'params', message: 'must be at most 100 characters' },
        ])
      : problem(400, Code.INVALID_URL, 'The URL is malformed (a bad percent-escape)');
  return sendProblem(request, reply, body);
}

/**
 * Shutting down (app.close() began): a request still arriving on a kept-alive connection gets a
 * problem like every other error, and is told to come back (Fastify's own 503 has a bare body;
 * return503OnClosing is off in app.ts so this hook answers instead). A request already in flight
 * when the close began is answered as usual, with `connection: close`: its kept-alive socket would
 * otherwise stay open after the answer and hold close() until the process was killed (10 s, exit 1).
 */
export function shutdownGuard() {
  let closing = false;
  return {
    preClose(done: () => void) {
      closing = true;
      done();
    },
    onSend(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    },
    onRequest(request: FastifyRequest, reply: FastifyReply, done: () => void) {
      if (!closing) return done();
      reply.header('connection', 'close').header('retry-after', '1');
      sendProblem(request, reply, problem(503, Code.SHUTTING_DOWN, 'This server is shutting down; retry the request'));
    },
  };
}
