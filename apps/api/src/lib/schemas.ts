import { BLANK_CLASS, MAX_PAGE, Uuid } from '@cfaq/core';
import { Type as T, type TSchema } from '@sinclair/typebox';

/** Shared request and response pieces, so every route spells them the same way. */
/** Response pieces come from core (`DateTime` is a Date that the serializer writes as an ISO string). */
export { DateTime, Nullable, Uuid } from '@cfaq/core';
export const IdParams = T.Object({ id: Uuid });

/**
 * What counts as blank in text: white space and the invisible format characters (zero-width space,
 * joiners, marks, BOM). One definition, core's (hasVisibleText checks the same class there).
 */
const BLANK = BLANK_CLASS;
/** The pattern of text holding at least `min` visible characters (linear: the two classes are disjoint). */
export const visiblePattern = (min: number) => `^[${BLANK}]*(?:[^${BLANK}][${BLANK}]*){${min}}`;
/**
 * Text people read (a FAQ's question and answer, a post's title and body, a search, a staff reason):
 * `min` to `max` characters, of which `visible` (by default all `min`) are neither white space nor
 * invisible format characters, so padding or zero-width characters cannot stand in for a question.
 */
export const VisibleText = (min: number, max: number, opts: { visible?: number; description?: string } = {}) => {
  const visible = opts.visible ?? min;
  const rule = `${min} to ${max} characters, at least ${visible} visible`;
  return T.String({
    minLength: min,
    maxLength: max,
    pattern: visiblePattern(visible),
    description: opts.description ? `${opts.description}; ${rule}` : rule,
  });
};

/**
 * name@domain.tld; surrounding spaces are allowed (trimmed before storing, with the address lower-cased).
 * No white space, control or invisible character inside: `admin@example.com\u200b` showed as another
 * account's address. Beyond the shared class (Basic Multilingual Plane only, for PostgreSQL and clients
 * without the `u` flag) that means the other planes' characters that render as nothing (tags, variation
 * selectors supplement, musical format characters) and the blank Braille pattern: Ajv compiles patterns
 * with the `u` flag. The domain's labels exclude the dot, so the pattern cannot backtrack: the earlier
 * `[^\s@]+\.[^\s@]+` took a minute over `a@a.a.a...` of 160 KB (Ajv runs it beside a failed maxLength).
 */
const ADDRESS_BLANK = `${BLANK}\\u2800\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E0FFF}`;
const ADDRESS_CHAR = `[^@${ADDRESS_BLANK}]`;
const LABEL = `[^@.${ADDRESS_BLANK}]+`;
export const EMAIL_PATTERN = `^\\s*${ADDRESS_CHAR}+@${LABEL}(?:\\.${LABEL})+\\s*$`;

/**
 * Dates a client sends: years 1900 to 2999. Wider years (0000, negative, five digits) pass the
 * format check but no program, suspension or log needs them, and PostgreSQL has no year 0.
 */
const SANE_YEAR = '^(19|2[0-9])[0-9]{2}-';
export const DayInput = T.String({ format: 'date', pattern: SANE_YEAR, description: 'YYYY-MM-DD, year 1900 to 2999' });
export const DateTimeInput = T.String({ format: 'date-time', pattern: SANE_YEAR, description: 'ISO 8601 date-time, year 1900 to 2999' });
/**
 * A `from`/`to` filter of a time-stamped list: a day (YYYY-MM-DD: from its start, or to its end) or an
 * ISO 8601 date-time; core's timeBound reads it (and refuses days that do not exist).
 */
export const TimeBoundInput = T.String({
  pattern: '^(19|2[0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,9})?)?([Zz]|[+-][0-9]{2}:?[0-9]{2}))?$',
  description: 'YYYY-MM-DD (a whole day, UTC) or an ISO 8601 date-time with its offset; year 1900 to 2999',
});

export const PageQuery = T.Object(
  {
    page: T.Optional(T.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `from 1 to ${MAX_PAGE}` })),
    limit: T.Optional(T.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);

/** A `batchId` a read accepts and ignores: the item, or the caller, decides the program. */
export const IgnoredBatchId = T.Optional(T.String({ maxLength: 100, description: 'ignored: the item or the caller decides the program' }));

/**
 * The page of something one item owns (a FAQ's revisions, a post's comments). `batchId` is accepted
 * and ignored, as every item route ignores it: the item's own program applies, and a client that
 * sends its program on every read is not refused here alone.
 */
export const ItemPageQuery = T.Object({ ...PageQuery.properties, batchId: IgnoredBatchId }, { additionalProperties: false });

/** `?batchId=`: the program to read or write; the default program when absent. */
export const BatchQuery = T.Object({ batchId: T.Optional(Uuid) }, { additionalProperties: false });

export const listOf = <S extends TSchema>(item: S) =>
  T.Object({ items: T.Array(item), total: T.Integer(), page: T.Integer(), limit: T.Integer() });

export const Ok = T.Object({ ok: T.Literal(true) });
