import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_VALUE_REJECTED } from '../src/plugins/problem.js';
import { createTestApp, GENEROUS_LIMITS, type TestApp } from './helpers.js';

/**
 * Schema-derived junk for every operation of the served OpenAPI document: each operation is called
 * once with a valid-looking request built from its schema, then once per junk value per field (wrong
 * types, NUL characters, huge numbers, overlong strings, impossible dates, unknown fields, bad ids).
 * No answer may be a 5xx. The document is read at run time, so a route added later is covered too.
 */

interface Schema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
}

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  parameters?: Parameter[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

let t: TestApp;
let doc: Doc;
let adminHeaders: Record<string, string>;
let userHeaders: Record<string, string>;
/** Ids of real rows, so that valid-looking requests reach the handlers' writes. */
const ids: Record<string, string> = {};

/** A real row's id for a path parameter, by the path's resource; undefined for unknown resources (a random uuid then). */
function knownId(path: string, param: string): string | undefined {
  if (param === 'cid') return ids.comment;
  if (param !== 'id') return undefined;
  if (path.startsWith('/api/faq')) return ids.faq;
  if (path.startsWith('/api/community')) return ids.post;
  if (path.startsWith('/api/batches') || path.startsWith('/api/programs')) return ids.program;
  if (path.startsWith('/api/auth/users') || path.startsWith('/api/admin/users')) return ids.user;
  return undefined;
}

beforeAll(async () => {
  t = await createTestApp({ env: { ...GENEROUS_LIMITS, RATE_LIMIT_USER_BURST_MAX: '10000000', SEARCH_SUGGEST_RATE_LIMIT: '100000' } });
  doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as Doc;
  adminHeaders = (await t.signIn('admin')).headers;
  const user = await t.signIn('user');
  userHeaders = user.headers;
  ids.user = user.id;
  const created = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: adminHeaders, payload });
    if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return (res.json() as { id: string }).id;
  };
  ids.program = await created('/api/batches', { name: 'Fuzz program' });
  ids.faq = await created('/api/faq', { question: 'How do I fuzz?', answer: 'With junk.' });
  ids.post = await created('/api/community/posts', { title: 'Fuzz post', body: 'A body.' });
  ids.comment = await created(`/api/community/posts/${ids.post}/comments`, { body: 'A comment.' });
});
afterAll(async () => {
  await t.close();
});

function resolve(s: Schema | undefined): Schema {
  if (!s) return {};
  if (s.$ref) {
    const name = s.$ref.split('/').pop() as string;
    return resolve(doc.components?.schemas?.[name]);
  }
  if (s.allOf) return s.allOf.reduce<Schema>((acc, part) => mergeObject(acc, resolve(part)), {});
  return s;
}

function mergeObject(a: Schema, b: Schema): Schema {
  return {
    ...a,
    ...b,
    properties: { ...(a.properties ?? {}), ...(b.properties ?? {}) },
    required: [...(a.required ?? []), ...(b.required ?? [])],
  };
}

const typeOf = (s: Schema): string | undefined => (Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type);

let counter = 0;

/** A value the schema accepts (as far as the generator can tell). */
function valid(raw: Schema | undefined, depth = 0): unknown {
  const s = resolve(raw);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum.find((v) => v !== null) ?? s.enum[0];
  const options = s.anyOf ?? s.oneOf;
  if (options) {
    const pick = options.map(resolve).find((o) => typeOf(o) !== 'null' && o.const !== null) ?? options[0];
    return valid(pick, depth);
  }
  switch (typeOf(s)) {
    case 'string': {
      counter += 1;
      if (s.format === 'uuid') return randomUUID();
      if (s.format === 'email') return `fuzz${counter}@example.com`;
      if (s.format === 'date') return '2026-01-15';
      if (s.format === 'date-time') return '2026-01-15T10:00:00.000Z';
      if (s.format === 'uri') return 'https://example.com/x';
      const len = Math.min(Math.max(s.minLength ?? 0, 8), s.maxLength ?? 8);
      return `fuzz${counter}aaaaaaaa`.slice(0, Math.max(len, 1)).padEnd(len, 'a');
    }
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'array':
      return depth > 4 ? [] : Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => valid(s.items, depth + 1));
    case 'object':
    case undefined: {
      if (!s.properties) return typeOf(s) === 'object' ? {} : 'x';
      if (depth > 4) return {};
      return Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, valid(v, depth + 1)]));
    }
    default:
      return null;
  }
}

const HUGE = '999999999999999999999';
const NUL = 'a\u0000b';
const LONG_BODY = 'x'.repeat(20_000);
const LONG_TEXT = 'x'.repeat(3_000);
const YEAR_ZERO = '0000-01-01';
const DASHES = '------------------------------------';

/** Junk for one body field, by the type of its valid value: wrong types, NULs, huge numbers, overlong text, year 0. */
function junkFor(value: unknown): unknown[] {
  if (typeof value === 'number') return [Number(HUGE), -Number(HUGE), 1.5, NUL, null];
  if (typeof value === 'boolean') return [NUL, 2];
  if (typeof value === 'string') return [NUL, LONG_BODY, YEAR_ZERO, DASHES, Number(HUGE), ['a\u0000']];
  return [NUL, Number(HUGE), null, {}];
}

/** Junk for a query or path parameter (always sent as text), by its declared type. */
function textJunkFor(schema: Schema | undefined): string[] {
  const s = resolve(schema);
  const type = typeOf(s) ?? typeOf(resolve(s.anyOf?.[0]));
  if (type === 'integer' || type === 'number') return [HUGE, '1e400', '-1', NUL];
  if (type === 'boolean') return [NUL, '2'];
  return [NUL, LONG_TEXT, YEAR_ZERO, DASHES, HUGE];
}

/** Every leaf path of a body value, with the mutated copy for each junk value. */
function bodyMutations(base: unknown): unknown[] {
  const out: unknown[] = [[], 'text', null];
  if (base && typeof base === 'object' && !Array.isArray(base)) out.push({ ...base, unknownField: 'x', ['k\u0000']: 1 });
  const walk = (value: unknown, set: (v: unknown) => unknown) => {
    for (const junk of junkFor(value)) out.push(set(junk));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, (j) => set({ ...(value as object), [k]: j }));
    } else if (Array.isArray(value) && value.length > 0) {
      walk(value[0], (j) => set([j, ...value.slice(1)]));
    }
  };
  if (base && typeof base === 'object' && !Array.isArray(base)) {
    for (const [k, v] of Object.entries(base)) walk(v, (j) => ({ ...(base as object), [k]: j }));
  }
  return out;
}

const enc = (v: unknown) => encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));

interface Call {
  method: string;
  url: string;
  payload?: unknown;
  headers: Record<string, string>;
}

function callsFor(path: string, method: string, op: Operation): Call[] {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const baseQuery = Object.fromEntries(queryParams.map((p) => [p.name, valid(p.schema)]));
  const basePath = Object.fromEntries(pathParams.map((p) => [p.name, knownId(path, p.name) ?? valid(p.schema)]));
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const baseBody = bodySchema ? valid(bodySchema) : undefined;

  const url = (pathValues: Record<string, unknown>, query: Record<string, unknown>) => {
    const p = path.replace(/\{(\w+)\}/g, (_m, name: string) => enc(pathValues[name]));
    const qs = Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`)
      .join('&');
    return qs ? `${p}?${qs}` : p;
  };
  const calls: Call[] = [];
  const add = (u: string, payload: unknown, headers = adminHeaders) => {
    const hasBody = bodySchema !== undefined || !['get', 'head', 'delete'].includes(method);
    calls.push({
      method: method.toUpperCase(),
      url: u,
      headers,
      ...(hasBody && payload !== undefined ? { payload: payload as object } : {}),
    });
  };
  // A server-sent event stream stays open for as long as its caller is signed in: only its refusal is a finite call.
  const streaming = Object.keys(op.responses?.['200']?.content ?? {}).some((type) => type.includes('event-stream'));
  add(url(basePath, baseQuery), baseBody, {});
  if (streaming) return calls;
  add(url(basePath, baseQuery), baseBody);
  add(url(basePath, baseQuery), baseBody, userHeaders);
  for (const p of pathParams) {
    for (const junk of textJunkFor(p.schema)) add(url({ ...basePath, [p.name]: junk }, baseQuery), baseBody);
    if (p.schema && resolve(p.schema).format === 'uuid') add(url({ ...basePath, [p.name]: randomUUID() }, baseQuery), baseBody);
  }
  for (const p of queryParams) {
    for (const junk of textJunkFor(p.schema)) add(url(basePath, { ...baseQuery, [p.name]: junk }), baseBody);
  }
  add(url(basePath, { ...baseQuery, unknownParam: 'x', 'k\u0000': 'v' }), baseBody);
  if (bodySchema) for (const body of bodyMutations(baseBody)) add(url(basePath, baseQuery), body);
  return calls;
}

describe('fuzz: every operation of the OpenAPI document', () => {
  it('answers schema-derived junk with 4xx naming the field, never 5xx', async () => {
    const calls: Call[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/api/docs')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations += 1;
        calls.push(...callsFor(path, method, op));
      }
    }
    expect(operations).toBeGreaterThan(50);
    const failures: string[] = [];
    const batch = 16;
    for (let i = 0; i < calls.length; i += batch) {
      await Promise.all(
        calls.slice(i, i + batch).map(async (c) => {
          const res = await t.app.inject({
            method: c.method as 'GET',
            url: c.url,
            headers: c.headers,
            ...(c.payload !== undefined
              ? { payload: JSON.stringify(c.payload), headers: { ...c.headers, 'content-type': 'application/json' } }
              : {}),
          });
          // The database's own refusal of a value is a 400 too, but it means a schema let the value through.
          const backstop = res.statusCode === 400 && (res.json() as { code?: string }).code === DATABASE_VALUE_REJECTED;
          if ((res.statusCode >= 500 || backstop) && failures.length < 60) {
            failures.push(`${res.statusCode} ${c.method} ${c.url.slice(0, 200)} ${JSON.stringify(c.payload)?.slice(0, 200) ?? ''}`);
          }
        }),
      );
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
