import ValidatorSelector from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Builder = (externalSchemas: unknown, options: unknown) => (route: { schema: unknown }) => unknown;

/**
 * Fastify compiles a validator and a serializer for every schema of every route (about 150 routes, each
 * with four or five `$ref: Problem` error responses), and Ajv and fast-json-stringify cache only by
 * object identity: building the app spent most of its second in compiling the same schemas again. The
 * compiled function depends only on the schema, the shared schemas and the options (both compilers
 * ignore the method, url and part they are given), so equal schemas share one function. The cache is
 * per process, keyed by content, so apps built later in the process (tests build several) reuse it too.
 */
function memoized(build: Builder): Builder {
  const byContext = new Map<string, Map<string, unknown>>();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const contextKey = JSON.stringify([externalSchemas, options ?? null]);
    const compiled = byContext.get(contextKey) ?? new Map<string, unknown>();
    byContext.set(contextKey, compiled);
    return (route) => {
      const key = JSON.stringify(route.schema);
      let fn = compiled.get(key);
      if (fn === undefined) {
        fn = compile(route);
        compiled.set(key, fn);
      }
      return fn;
    };
  };
}

type AjvOptions = { customOptions?: Record<string, unknown> } & Record<string, unknown>;

/** The app's Ajv options (Fastify's `ajv` setting). */
export const AJV_OPTIONS = {
  // verbose: an error carries its keyword's schema, so a `not` can say what it refuses (problem.ts).
  customOptions: { allErrors: true, coerceTypes: 'array' as const, removeAdditional: false, useDefaults: true, verbose: true },
  // ajv-formats' uuid admits a `urn:uuid:` prefix, which PostgreSQL's uuid refuses: such an id passed
  // every schema and came back as a 400 naming no field. A uuid here is the 36 characters alone, in
  // lower case as this API writes every id: an upper-case spelling of one's own id passed the string
  // comparisons of the self checks (an admin could suspend themself).
  onCreate: (ajv: { addFormat(name: string, format: RegExp): unknown }) => {
    ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  },
};

/**
 * Type coercion is for the parts that arrive as text (query string, path parameters, headers): `?page=2`
 * is a number. A JSON body carries its own types, and coercing them turned `{"action": ["reject"]}` into
 * "reject", `{"reason": 12345}` into "12345" and `{"bio": null}` into "" (the string branch of a nullable
 * string coerces null first): a wrong type in a body is a 400 naming the field.
 */
function bodyWithoutCoercion(build: Builder): Builder {
  return (externalSchemas, options) => {
    const coercing = build(externalSchemas, options);
    const o = (options ?? {}) as AjvOptions;
    const strict = build(externalSchemas, { ...o, customOptions: { ...o.customOptions, coerceTypes: false } });
    return (route) => ((route as { httpPart?: string }).httpPart === 'body' ? strict(route) : coercing(route));
  };
}

export const memoizedCompilers: CompilersFactory = {
  buildValidator: bodyWithoutCoercion(memoized(ValidatorSelector() as unknown as Builder)) as unknown as CompilersFactory['buildValidator'],
  buildSerializer: memoized(SerializerSelector() as unknown as Builder) as unknown as CompilersFactory['buildSerializer'],
};

export type BodyValidator = ((value: unknown) => boolean) & { errors?: unknown[] | null };

/**
 * A JSON body validator compiled as the app compiles route bodies, for a body a route must check by hand
 * (one that may be multipart or JSON): the same rules (lengths in characters), the same Ajv errors.
 */
export function compileBodyValidator(schema: unknown): BodyValidator {
  return compilePartValidator(schema, 'body');
}

/** A validator for one part of a request (`querystring`, `params`, `body`), compiled as the app compiles routes. */
export function compilePartValidator(schema: unknown, httpPart: string): BodyValidator {
  const build = memoizedCompilers.buildValidator as unknown as Builder;
  return build({}, AJV_OPTIONS)({ schema, httpPart } as { schema: unknown }) as BodyValidator;
}
