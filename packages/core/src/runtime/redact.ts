import pino from 'pino';

const CENSOR = '[redacted]';

/**
 * Secret shapes recognised by value wherever they appear in a log line (a message, an error's text,
 * any string field), not only under the field names the path redaction knows.
 */
type Replacement = string | ((match: string, ...groups: string[]) => string);

/** A query parameter's name that holds a credential (see the URL shape below). */
const CREDENTIAL_PARAM = /token|secret|passw|signature|api[_-]?key|credential|^(?:code|state|key|sig|otp)$/i;
/** The same outside a URL ("password=..." in a message): only the long names, not an error's `code=`. */
const CREDENTIAL_NAME = /token|secret|passw|signature|api[_-]?key|credential/i;

/** The base64url alphabet, as a character class body. */
const B64 = 'A-Za-z0-9_-';
/** Right after a percent, \u or \x escape, whose last characters are base64url ones ("token%3D<token>"). */
const AFTER_ESCAPE = String.raw`(?<=%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2})`;

const SECRET_SHAPES: [RegExp, Replacement][] = [
  // argon2 password hashes ($argon2id$v=19$m=...,t=...,p=...$salt$hash), their parameters in any
  // order: the argon2 package writes m,p,t; other libraries m,t,p
  [/\$argon2(?:id|i|d)\$v=\d+\$[a-z]+=\d+(?:,[a-z]+=\d+)*\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+/g, CENSOR],
  // JWTs (header and payload are base64url JSON objects: both start eyJ)
  [/eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, CENSOR],
  // bearer credentials of any kind
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${CENSOR}`],
  // provider API keys: OpenAI and Anthropic (sk-...), Google (AIza...), GitHub, AWS access keys, Slack
  [/\bsk-[A-Za-z0-9_-]{16,}/g, CENSOR],
  [/\bAIza[0-9A-Za-z_-]{35}/g, CENSOR],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}/g, CENSOR],
  [/\bAKIA[0-9A-Z]{16}\b/g, CENSOR],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, CENSOR],
  // this service's own opaque tokens (refresh tokens and their successors: 32 random bytes or an
  // HMAC-SHA256, base64url, 43 characters), which a client may quote in a frontend log: a run of
  // exactly 43 such characters mixing upper and lower case (a slug, a uuid or a hex digest never does).
  // The run may start right after an escape whose last characters are base64url ones: a percent-encoded
  // "token%3D<token>" (a URL quoted inside a URL), a JSON or JavaScript "\u003d<token>" or "\x3d<token>".
  [new RegExp(`(?:(?<![${B64}])|${AFTER_ESCAPE})(?=[${B64}]{0,42}[A-Z])(?=[${B64}]{0,42}[a-z])[${B64}]{43}(?![${B64}])`, 'g'), CENSOR],
  // ... and such a token glued to other characters of its alphabet ("rt_<token>", "<token>-x"): a
  // longer run holding upper case, lower case and a digit, as 43 random characters nearly always do
  // (a slug or a hex digest has no upper case, a long identifier seldom a digit), is censored whole;
  // after an escape it starts past the escape (the 3 of %3D is no digit of the run)
  [
    new RegExp(
      `(?:(?<![%\\\\${B64}])|${AFTER_ESCAPE})(?=[${B64}]*[A-Z])(?=[${B64}]*[a-z])(?=[${B64}]*[0-9])[${B64}]{44,}(?![${B64}])`,
      'g',
    ),
    CENSOR,
  ],
  // secrets in a URL's query string: any parameter named like a credential (access_token,
  // refreshToken, client_secret, password, api_key, signature...), an OAuth code or state, an OTP;
  // also in a percent-encoded URL inside another (a return address: %3F, %26, %3B and %3D). Linear in
  // the text: the name is taken whole (a lookahead and its back-reference, so it never backtracks) and
  // judged by CREDENTIAL_PARAM, and a value ends at any separator, plain or encoded, so a parameter
  // nested in another's value ("?next=%2Fcb%3Fpassword%3D...") is a match of its own.
  [
    // A fragment counts (OAuth's implicit flow puts #access_token=... there), and so does a name=value
    // at the start of the text or after a space, quote, comma or bracket, for the long names only.
    /([?&;#]|%3F|%26|%3B|%23|^|(?<=[\s"'(,{[]))(?=((?:(?!%3D|%26|%3B|%3F|%23)[^=&#\s?;"'])*))\2(=|%3D)("[^"\s]*"|'[^'\s]*'|(?:(?!%26|%23|%3B|%3F)[^&#\s"';?])*)/gi,
    (param: string, sep: string, name: string, eq: string) =>
      (sep ? CREDENTIAL_PARAM : CREDENTIAL_NAME).test(name) ? `${sep}${name}${eq}${CENSOR}` : param,
  ],
];

/** Quick pre-check so a clean string (nearly every one) costs one scan, not one per shape. */
const MAYBE_SECRET =
  /\$argon2|eyJ|bearer|basic|sk-|AIza|gh[pousr]_|AKIA|xox|[?&;#][^=&#\s?;]*=|%3D|(?:token|secret|passw|signature|key|credential)[^=\s]{0,64}=|[A-Za-z0-9_-]{43}/i;

export function redactString(s: string): string {
  if (!MAYBE_SECRET.test(s)) return s;
  let out = s;
  for (const [shape, replacement] of SECRET_SHAPES) {
    out = typeof replacement === 'string' ? out.replace(shape, replacement) : out.replace(shape, replacement);
  }
  return out;
}

/** Secret values shorter than this are not scrubbed by value (they would mangle ordinary words). */
const MIN_SCRUBBED_LENGTH = 4;

/**
 * `text` with every occurrence of the given secret values replaced (as given and URL-encoded), then the
 * secret shapes (redactString). For text that is stored or returned, not only logged, and may quote a
 * credential that has no recognisable shape: an OpenAI-compatible gateway's 401 "bad key <the key>".
 * Longer values first, so a key that contains another is replaced whole.
 */
export function scrubSecrets(text: string, secrets: Iterable<string | null | undefined>): string {
  const values = new Set<string>();
  for (const s of secrets) {
    if (typeof s !== 'string' || s.length < MIN_SCRUBBED_LENGTH) continue;
    values.add(s);
    const encoded = encodeURIComponent(s);
    if (encoded !== s) values.add(encoded);
  }
  let out = text;
  for (const v of [...values].sort((a, b) => b.length - a.length)) out = out.split(v).join(CENSOR);
  return redactString(out);
}

/**
 * An error as a log field: pino's standard form, without the statement parameters a database error
 * carries (drizzle's DrizzleQueryError keeps them in `params` and in its message, "Failed query: ...
 * params: ..."; a failed INSERT of a user carries the password hash). The statement text stays.
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  return stripParams(out, 0);
}

const PARAMS_IN_TEXT = /\nparams: [\s\S]*?(?=\n {4}at |$)/g;

function stripParams(e: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === 'params' || k === 'parameters') continue;
    if ((k === 'message' || k === 'stack') && typeof v === 'string') out[k] = v.replace(PARAMS_IN_TEXT, `\nparams: ${CENSOR}`);
    else if (k === 'cause' && v && typeof v === 'object' && depth < 5) out[k] = stripParams(v as Record<string, unknown>, depth + 1);
    else out[k] = v;
  }
  return out;
}

/**
 * Field names that hold a secret at any depth, whatever the value looks like (a password, an opaque
 * refresh token): `password`, `Password`, `refreshToken`, `client_secret`, `apiKey`, `authorization`...
 * Numbers and booleans stay, so counts named like them (`inputTokens: 120`) stay readable.
 */
const SECRET_KEY = /passw|passphrase|token|secret|api[-_]?key|authorization|cookie|credential|signature|private[-_]?key|^otp$/i;

const isPlain = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * A log object with every secret-shaped string, and every string under a secret's field name
 * (SECRET_KEY), replaced, and errors serialised without their
 * parameters. Walks plain objects and arrays only (never framework objects such as a request, which
 * their own serializers reduce), to a bounded depth.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) return redactValue(serializeError(value), depth + 1);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (!isPlain(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // Under a secret's name every value but a number, a boolean or nothing is censored whole (a list of
    // tokens, an object of credentials); counts stay readable.
    const hidden = SECRET_KEY.test(k) && v !== null && v !== '' && (typeof v === 'string' || typeof v === 'object');
    // A key is scanned too: a client's log context may use a token as a key ({ "<token>": 1 }).
    out[redactString(k)] = hidden ? CENSOR : redactValue(v, depth + 1);
  }
  return out;
}

/** The request as Fastify logs it, with secrets in its query string redacted (see SECRET_SHAPES). */
export function serializeRequest(req: {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactString(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
