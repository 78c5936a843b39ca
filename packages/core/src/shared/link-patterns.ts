/**
 * Patterns (JSON Schema, Ajv's unicode regexes) for links the service stores for a page to render.
 * An http(s) URL needs a host: after the scheme (any case) and optional user info, a first host
 * character that is not `:` or `@` (`http://`, `http://@`, `http://:80` are no URLs). No whitespace or
 * backslash anywhere: browsers read `/\evil.example` as `//evil.example`, another site.
 */
const HOSTED = String.raw`[Hh][Tt][Tt][Pp][Ss]?://(?:[^\s/?#@\\]*@)?[^\s/?#@:\\][^\s\\]*`;
/** A path on the same site: one `/`, never `//` or `/\` (both lead to another host). */
const SITE_PATH = String.raw`/(?![/\\])[^\s\\]*`;

export const HTTP_URL_PATTERN = `^${HOSTED}$`;
export const IMAGE_URL_PATTERN = `^(?:${HOSTED}|${SITE_PATH})$`;
export const LINK_URL_PATTERN = `^(?:${HOSTED}|${SITE_PATH}|#[^\\s]*|[Mm][Aa][Ii][Ll][Tt][Oo]:[^\\s]+)$`;
