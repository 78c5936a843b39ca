/**
 * What text is, in one place: which characters count as blank (the API's request schemas build their
 * patterns from BLANK_CLASS; core's checks call hasVisibleText), and which strings PostgreSQL can store.
 */

/**
 * The blank characters, as the body of a regular-expression character class (no brackets): white
 * space and the characters that show nothing on their own, Unicode's default-ignorable ones of the
 * Basic Multilingual Plane, and the control characters (C0 and C1 but NUL, refused everywhere, and
 * tab, line feed, vertical tab, form feed and carriage return, which are white space: a question of
 * five controls was published, readable by nobody): soft hyphen U+00AD, combining grapheme joiner U+034F, Arabic letter mark
 * U+061C, the Hangul fillers U+115F-U+1160, U+3164 and U+FFA0, Khmer inherent vowels U+17B4-U+17B5,
 * Mongolian selectors and vowel separator U+180B-U+180F, zero-width space, non-joiner, joiner and the
 * direction marks U+200B-U+200F, the embeddings and overrides U+202A-U+202E, word joiner, invisible
 * operators, isolates and deprecated format characters U+2060-U+206F, variation selectors
 * U+FE00-U+FE0F, BOM U+FEFF and the unassigned U+FFF0-U+FFF8. A string of only these shows nothing. (The supplementary planes' tag
 * characters and variation selectors are left out: a class with them needs the `u` flag, which
 * PostgreSQL's regular expressions and a client's copy of the OpenAPI pattern may not have.)
 * Escapes only (\uXXXX), so JavaScript (with or without `u`), Ajv and PostgreSQL read the same class.
 */
/** The control characters of INVISIBLE_CLASS (search's normalizeQuery reads them as a space). */
const CONTROL_CLASS = '\\u0001-\\u0008\\u000e-\\u001f\\u007f-\\u009f';
export const INVISIBLE_CLASS =
  CONTROL_CLASS +
  '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufff8';
export const BLANK_CLASS = `\\s${INVISIBLE_CLASS}`;

const VISIBLE = new RegExp(`[^${BLANK_CLASS}]`);

/**
 * True when the text has a character people can see: `.trim()` keeps zero-width characters, so a
 * check with it let "\u200b\u200b" stand in for an answer.
 */
export const hasVisibleText = (s: string | null | undefined): boolean => typeof s === 'string' && VISIBLE.test(s);

/** A surrogate half without its pair: not text PostgreSQL can store (nor JSON it accepts). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text PostgreSQL can store: NUL characters out (text and jsonb refuse them: 22P05), lone surrogate
 * halves as U+FFFD. For text from outside that is stored (a recording's fields, an AI provider's reply).
 */
export const storableText = (s: string) => s.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');

/** storableText on every string of a parsed JSON value (object keys too); other values as they are. */
export function storableValue<V>(value: V): V {
  if (typeof value === 'string') return storableText(value) as V;
  if (Array.isArray(value)) return value.map(storableValue) as V;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[storableText(k)] = storableValue(v);
    return out as V;
  }
  return value;
}

/**
 * The same rule in SQL, over a text expression (PostgreSQL's regular expressions read the class's
 * escapes, \s and \uXXXX, as JavaScript does): true when it has a visible character, false for
 * blank text, null for null.
 */
export const VISIBLE_TEXT_REGEX = `[^${BLANK_CLASS}]`;
