import { Value } from '@sinclair/typebox/value';
import { CronExpressionParser } from 'cron-parser';
import { PASSWORD_MAX, PASSWORD_MIN, passwordLengthAllowed } from '../identity/password-rule.js';
import {
  DECIMAL,
  databaseUrlProblem,
  emailProblem,
  hostProblem,
  httpUrlProblem,
  normalizeOllamaHost,
  originProblem,
  trustProxyProblem,
} from './checks.js';
import { type Config, ConfigSchema } from './schema.js';

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`Invalid setting ${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** A setting whose value is a secret (never echoed); costs and limits named after one (PASSWORD_HASH_*, *_MAX) are not. */
const isSecretSetting = (name: string) =>
  /SECRET|KEY|PASSWORD|TOKEN/.test(name) && !/^PASSWORD_HASH_|_(MAX|SECONDS|MINUTES|HOURS|DAYS)$/.test(name);

/** Base64 (or base64url) of exactly 32 bytes: 43 characters and one `=` of padding, or 43 without. */
const BASE64_32 = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}$/;

/**
 * Decodes ENCRYPTION_KEY (64 hex chars or base64 of 32 bytes); anything else is refused. Node's base64
 * decoder skips characters it does not know, so a 43-letter passphrase would decode to 32 bytes of a
 * guessable key: the text itself must be base64 of 32 bytes.
 */
export function decodeEncryptionKey(raw: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (raw.length === 64)
    throw new ConfigError(
      'ENCRYPTION_KEY',
      'has 64 characters but is not hex (0-9, a-f): 32 bytes as 64 hex characters or base64 (44 characters)',
    );
  const key = Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64');
  if (!BASE64_32.test(raw) || key.length !== 32) {
    throw new ConfigError(
      'ENCRYPTION_KEY',
      `must be 32 bytes of random key as 64 hex characters or base64 (44 characters), got ${key.length} bytes`,
    );
  }
  return key;
}

/**
 * Settings read byte for byte: a password may begin or end with spaces, as registration allows
 * (trimmed, the first admin could not sign in with the password the operator set).
 */
const KEPT_AS_GIVEN = new Set(['ADMIN_PASSWORD']);

/**
 * Reads settings from an environment map. Empty strings count as unset. Throws ConfigError naming
 * the first bad setting, so the process can stop with a message an operator can act on.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const v = env[key];
    if (v !== undefined && v.trim() !== '') raw[key] = KEPT_AS_GIVEN.has(key) ? v : v.trim();
  }
  // Value.Convert truncates "2.5" to 2 for an integer setting and reads "0x1" as 0 for a number one:
  // a number setting takes decimal digits only, and a value that is not one is named here.
  for (const [key, value] of Object.entries(raw)) {
    const schema = (ConfigSchema.properties as Record<string, { type?: unknown }>)[key];
    if (schema?.type === 'integer' && !/^[+-]?\d+$/.test(value as string)) {
      throw new ConfigError(key, `must be a whole number (value: ${JSON.stringify(value)})`);
    }
    if (schema?.type === 'number' && !DECIMAL.test(value as string)) {
      throw new ConfigError(key, `must be a decimal number such as 0.85 (value: ${JSON.stringify(value)})`);
    }
  }
  const converted = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, structuredClone(raw)));
  const first = Value.Errors(ConfigSchema, converted).First();
  if (first) {
    const setting = first.path.replace(/^\//, '') || 'config';
    const shown = raw[setting] === undefined ? 'missing' : JSON.stringify(raw[setting]);
    const allowed = (first.schema as { anyOf?: { const?: unknown }[] }).anyOf?.map((s) => s.const);
    const message = allowed?.every((v) => typeof v === 'string') ? `must be one of: ${allowed.join(', ')}` : first.message;
    throw new ConfigError(setting, `${message} (value: ${isSecretSetting(setting) ? '[redacted]' : shown})`);
  }
  const config = converted as Config;
  if (config.OLLAMA_HOST !== undefined) config.OLLAMA_HOST = normalizeOllamaHost(config.OLLAMA_HOST);
  // `true`/`false` in any case, as the boolean settings read them.
  if (/^(true|false)$/i.test(config.TRUST_PROXY)) config.TRUST_PROXY = config.TRUST_PROXY.toLowerCase();
  checkValues(config, raw);
  checkCrossField(config);
  return config;
}

/** The settings typed as a URL, checked as http(s) URLs with a host. */
const HTTP_URL_SETTINGS = [
  'OPENAI_BASE_URL',
  'ANTHROPIC_BASE_URL',
  'GEMINI_BASE_URL',
  'OLLAMA_HOST',
  'CONF_OAUTH_BASE_URL',
  'CONF_API_BASE_URL',
  'CONF_REDIRECT_URI',
] as const satisfies readonly (keyof Config)[];

/** Values with a form TypeBox cannot check: hosts, addresses, URLs, origins, an e-mail, the admin password. */
function checkValues(c: Config, raw: Record<string, unknown>): void {
  // `echo`: false where the problem names the bad entry already, or the value holds a password.
  const fail = (setting: keyof Config, problem: string | null, echo = true) => {
    if (problem) throw new ConfigError(setting, echo ? `${problem} (value: ${JSON.stringify(raw[setting])})` : problem);
  };
  fail('HOST', hostProblem(c.HOST));
  fail('TRUST_PROXY', trustProxyProblem(c.TRUST_PROXY), false);
  for (const setting of HTTP_URL_SETTINGS) {
    const value = c[setting];
    // A redirect URI may carry a query; the others are bases the clients append paths to. A value
    // that may hold a credential (a user:password@, a ?key=) is not echoed: the message goes to the log.
    if (value !== undefined) fail(setting, httpUrlProblem(value, { base: setting !== 'CONF_REDIRECT_URI' }), !/[@?]/.test(value));
  }
  for (const origin of splitList(c.CORS_ORIGINS)) fail('CORS_ORIGINS', originProblem(origin), false);
  for (const host of splitList(c.CONF_DOWNLOAD_HOSTS)) {
    const problem = hostProblem(host.replace(/^\*\./, ''));
    fail('CONF_DOWNLOAD_HOSTS', problem && `${JSON.stringify(host)} is not a host name, *.domain or an IP address`, false);
  }
  if (c.ADMIN_EMAIL !== undefined) fail('ADMIN_EMAIL', emailProblem(c.ADMIN_EMAIL));
  if (c.ADMIN_PASSWORD !== undefined && !passwordLengthAllowed(c.ADMIN_PASSWORD)) {
    // The rule of registration and password changes; the value is never echoed.
    throw new ConfigError('ADMIN_PASSWORD', `must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters, as every password`);
  }
  if (c.DATABASE_URL !== undefined) fail('DATABASE_URL', databaseUrlProblem(c.DATABASE_URL), false);
  // Sent as `Authorization: Bearer <token>`, which /api/metrics reads as one run of non-space characters;
  // a token with a space (or a letter Node reads as latin1 from the header) could never be presented.
  if (c.METRICS_TOKEN !== undefined && !/^[\x21-\x7e]+$/.test(c.METRICS_TOKEN)) {
    throw new ConfigError('METRICS_TOKEN', 'must be printable ASCII without spaces: it is sent as Authorization: Bearer <token>');
  }
  for (const [setting, minutesPerUnit] of SCHEDULE_INTERVALS) {
    if (c[setting] * minutesPerUnit < 1) {
      const least = minutesPerUnit === 1 ? '1' : '0.0167 (one minute)';
      fail(setting, `must be at least ${least}: jobs are scheduled in whole minutes`);
    }
  }
}

/**
 * The settings that schedule a job, with the minutes in one of their unit. pg-boss schedules in whole
 * minutes (jobs/contract.ts rounds), so an interval under a minute is refused, not rounded up to one.
 */
const SCHEDULE_INTERVALS = [
  ['AUTO_ANSWER_INTERVAL_HOURS', 60],
  ['FAQ_AUDIT_INTERVAL_HOURS', 60],
  ['RETENTION_INTERVAL_HOURS', 60],
  ['PROMOTION_INTERVAL_MINUTES', 1],
  ['UNANSWERED_ESCALATION_CHECK_MINUTES', 1],
] as const satisfies readonly (readonly [keyof Config, number])[];

/** Fewest distinct characters a production JWT_SECRET may have (32 × `a` has one). */
const JWT_SECRET_MIN_DISTINCT = 8;

function checkCrossField(c: Config): void {
  if (c.JWT_SECRET !== undefined && c.JWT_SECRET.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters');
  }
  if (c.ENCRYPTION_KEY !== undefined) decodeEncryptionKey(c.ENCRYPTION_KEY);
  if (c.NODE_ENV === 'production') {
    for (const key of ['JWT_SECRET', 'ENCRYPTION_KEY'] as const) {
      if (!c[key]) throw new ConfigError(key, 'is required in production');
    }
    // Placeholders, not random secrets: a JWT_SECRET of one letter repeated lets anyone forge tokens,
    // a key of one byte repeated decrypts the stored provider secrets. Generated ones never look like this.
    if (new Set(c.JWT_SECRET).size < JWT_SECRET_MIN_DISTINCT) {
      throw new ConfigError(
        'JWT_SECRET',
        `must have at least ${JWT_SECRET_MIN_DISTINCT} distinct characters in production (a random secret)`,
      );
    }
    if (new Set(decodeEncryptionKey(c.ENCRYPTION_KEY as string)).size === 1) {
      throw new ConfigError('ENCRYPTION_KEY', 'must be random bytes in production, not one byte repeated');
    }
    // OWASP's argon2id floor (19 MiB, 2 passes): the low costs the tests run with never reach production.
    if (c.PASSWORD_HASH_MEMORY_KIB < 19_456) throw new ConfigError('PASSWORD_HASH_MEMORY_KIB', 'must be at least 19456 in production');
    if (c.PASSWORD_HASH_ITERATIONS < 2) throw new ConfigError('PASSWORD_HASH_ITERATIONS', 'must be at least 2 in production');
  }
  if (c.AUTO_ANSWER_SUGGEST_THRESHOLD > c.AUTO_ANSWER_APPROVE_THRESHOLD) {
    throw new ConfigError(
      'AUTO_ANSWER_SUGGEST_THRESHOLD',
      `must not exceed AUTO_ANSWER_APPROVE_THRESHOLD (${c.AUTO_ANSWER_SUGGEST_THRESHOLD} > ${c.AUTO_ANSWER_APPROVE_THRESHOLD})`,
    );
  }
  if (c.FAQ_AUDIT_CONTRADICTION_THRESHOLD > c.FAQ_AUDIT_FLAG_THRESHOLD) {
    throw new ConfigError(
      'FAQ_AUDIT_CONTRADICTION_THRESHOLD',
      `must not exceed FAQ_AUDIT_FLAG_THRESHOLD (${c.FAQ_AUDIT_CONTRADICTION_THRESHOLD} > ${c.FAQ_AUDIT_FLAG_THRESHOLD})`,
    );
  }
  for (const pattern of splitPatternList(c.CONF_TOPIC_BLACKLIST)) {
    try {
      new RegExp(pattern, 'i');
    } catch (err) {
      throw new ConfigError(
        'CONF_TOPIC_BLACKLIST',
        `pattern ${JSON.stringify(pattern)} is not a valid regular expression (${(err as Error).message}); patterns are separated by commas outside (), [] and {n,m}, and \\, is a literal comma`,
      );
    }
  }
  checkCron('FAQ_FRESHNESS_CRON_SCHEDULE', c.FAQ_FRESHNESS_CRON_SCHEDULE);
}

/**
 * A schedule pg-boss can run: five fields (minute resolution, as pg-boss schedules) that cron-parser,
 * the parser pg-boss itself uses, accepts: `0 6 * * 99` or `61 * * * *` fail here, not at the first run.
 */
function checkCron(setting: string, expression: string): void {
  if (expression.trim().split(/\s+/).length !== 5) throw new ConfigError(setting, 'must be a five-field cron expression');
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC' });
  } catch (err) {
    throw new ConfigError(setting, `is not a valid cron expression (${(err as Error).message})`);
  }
}

/**
 * A comma-separated list of regular expressions (CONF_TOPIC_BLACKLIST): a comma separates two patterns
 * only outside parentheses, a character class `[...]` and a `{n,m}` quantifier, and not after a
 * backslash (`\,` matches a comma), so `^internal.{0,3}sync$, ^1:1` is two patterns. Each is trimmed;
 * empty ones are dropped. A pattern left unbalanced (`(a, b`) stays one pattern and fails to compile,
 * which stops the process at start naming it.
 */
export function splitPatternList(value: string): string[] {
  const out: string[] = [];
  let current = '';
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '\\') {
      current += value.slice(i, i + 2);
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') inClass = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === '{') {
      // A quantifier ({n}, {n,}, {n,m}) is taken whole; any other brace is an ordinary character.
      const quantifier = /^\{\d+(,\d*)?\}/.exec(value.slice(i));
      if (quantifier) {
        current += quantifier[0];
        i += quantifier[0].length - 1;
        continue;
      }
    } else if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
