import { FormatRegistry, Kind, Type as T, type TLiteral, type TSchema, type TUnion, TypeRegistry } from '@sinclair/typebox';
import '../jobs/formats.js';

/**
 * The pieces every response shape is built from. A shape is declared once, as TypeBox next to its
 * domain (`faqs/shape.ts`, `identity/shape.ts`, ...): the routes use it as their response schema, and
 * `Static<>` of it is the type the core function returns, so the two cannot disagree.
 */

export const Uuid = T.String({ format: 'uuid' });

/** A calendar day (YYYY-MM-DD) as text, for Value.Check of shapes (uuid and date-time are registered in jobs/formats). */
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)));

/**
 * A point in time. Core returns a `Date`; Fastify's serializer (fast-json-stringify) writes it as an
 * ISO 8601 string (`toISOString()`), which is what the document promises. Value.Check accepts only a
 * valid Date, so a shape check of a core result catches a date that was turned into text by hand.
 */
TypeRegistry.Set<Date>('DateTime', (_schema, value) => value instanceof Date && !Number.isNaN(value.getTime()));
export const DateTime = T.Unsafe<Date>({ [Kind]: 'DateTime', type: 'string', format: 'date-time' });

export const Nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);

type Literals<V extends readonly string[]> = { -readonly [K in keyof V]: TLiteral<V[K]> };

/** A database enum (`pgEnum(...).enumValues`) as a union of literals: one list of values, in the schema and in SQL. */
export const literals = <const V extends readonly [string, ...string[]]>(values: V, options?: Parameters<typeof T.Union>[1]) =>
  T.Union(values.map((v) => T.Literal(v)) as unknown as Literals<V>, options) as TUnion<Literals<V>>;

export const pageOf = <S extends TSchema>(item: S) =>
  T.Object({ items: T.Array(item), total: T.Integer(), page: T.Integer(), limit: T.Integer() });

/** A timestamp from a raw `execute()` row (a Date from pg, text from some drivers) as a Date. */
export const toDate = (d: Date | string): Date => (d instanceof Date ? d : new Date(d));
