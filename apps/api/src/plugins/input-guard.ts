import { invalidField } from '@cfaq/core';
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const NUL = '\u0000';
/** Deeper than any request schema nests; a deeper value is refused rather than walked. */
const MAX_DEPTH = 32;

/**
 * The first place in a parsed value where a string (a value or an object key) holds a NUL
 * character, as a field path ("body.name", "query.q", "body.tags.0"), or null when there is none.
 * PostgreSQL cannot store NUL in text, so such input would otherwise fail as a database error.
 */
export function findNul(value: unknown, path: string, depth = 0): string | null {
  return findUnstorable(value, path, depth)?.path ?? null;
}

/** findNul's walk, saying why the value is refused: a NUL character, or nesting past MAX_DEPTH. */
export function findUnstorable(value: unknown, path: string, depth = 0): { path: string; message: string } | null {
  if (typeof value === 'string') return value.includes(NUL) ? { path, message: 'must not contain NUL characters (\\u0000)' } : null;
  if (value === null || typeof value !== 'object') return null;
  // A raw body (the conf webhook parses bodies as buffers for its signature) holds bytes, not
  // strings: walking it visited every byte as a key (about 0.1 us a byte per request) and found nothing.
  if (ArrayBuffer.isView(value)) return null;
  if (depth > MAX_DEPTH) return { path, message: `is nested deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], `${path}.${i}`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (key.includes(NUL))
      return { path: `${path}.${key.replaceAll(NUL, '\\u0000')}`, message: 'must not contain NUL characters (\\u0000)' };
    const hit = findUnstorable((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** A surrogate half without its pair: JSON can spell it (`"\\ud800"`), text cannot hold it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A parsed JSON body with every lone surrogate half (in values and keys) replaced by U+FFFD, changed in
 * place; the value itself when it holds none. Text columns got U+FFFD anyway (the driver encodes
 * UTF-8), but a JSON column (revisions, audit details) refused the escape and the write failed as a
 * database error, so one route stored what another refused. Walked after findUnstorable, so the
 * depth is bounded.
 */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = wellFormed(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const clean = wellFormed(key) as string;
    const v = wellFormed(record[key]);
    if (clean !== key) delete record[key];
    record[clean] = v;
  }
  return value;
}

/**
 * The first number that is not finite in a validated value, as a field path, or null. JSON has no
 * Infinity, but the validator coerces query text such as "1e400" to Infinity and then skips its
 * minimum and maximum checks (Ajv tests bounds on finite numbers only).
 */
export function findNonFinite(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  for (const [key, v] of Object.entries(value)) {
    const hit = findNonFinite(v, `${path}.${key}`, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/**
 * One rule for every route, before schema validation: no NUL character anywhere in the path
 * parameters, the query or the JSON body, and a body's lone surrogate halves become U+FFFD. The answer is the usual 400 VALIDATION_FAILED naming the
 * field. After validation, no coerced number may be infinite. Routes need not repeat either rule;
 * routes added later get them too.
 */
export const inputGuardPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preValidation', (request, _reply, done) => {
      const bad =
        findUnstorable(request.params, 'params') ?? findUnstorable(request.query, 'query') ?? findUnstorable(request.body, 'body');
      if (bad) return done(invalidField(bad.path, bad.message) as unknown as FastifyError);
      request.body = wellFormed(request.body);
      done();
    });
    app.addHook('preHandler', (request, _reply, done) => {
      const where = findNonFinite(request.params, 'params') ?? findNonFinite(request.query, 'query');
      if (where) return done(invalidField(where, 'must be a finite number within its bounds') as unknown as FastifyError);
      done();
    });
  },
  { name: 'input-guard' },
);
