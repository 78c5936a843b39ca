import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ENV } from '@cfaq/testkit';
import { describe, expect, it } from 'vitest';
import { blacklistedBy, topicBlacklist } from '../src/conf/topic.js';
import { ConfigError, ConfigSchema, ensureDataDir, loadConfig, splitPatternList } from '../src/config/index.js';

const key = '0123456789abcdef'.repeat(4);
/** A production JWT secret: long, and not one letter repeated. */
const jwt = 'prod-jwt-secret-0123456789-abcdefghij';

describe('loadConfig', () => {
  it("applies the spec's defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      AUTO_ANSWER_APPROVE_THRESHOLD: 0.85,
      AUTO_ANSWER_SUGGEST_THRESHOLD: 0.6,
      AUTO_ANSWER_BATCH_SIZE: 20,
      AUTO_ANSWER_MIN_POST_AGE_HOURS: 2,
      AUTO_ANSWER_INTERVAL_HOURS: 24,
      FAQ_AUDIT_BATCH_SIZE: 20,
      FAQ_AUDIT_FLAG_THRESHOLD: 0.8,
      FAQ_AUDIT_INTERVAL_HOURS: 6,
      FAQ_VERIFY_THRESHOLD: 3,
      FAQ_ESCALATION_DAYS: 3,
      FAQ_SEASONAL_DAYS: 15,
      FAQ_VOLATILE_DAYS: 4,
      FAQ_FRESHNESS_CRON_SCHEDULE: '0 6 * * *',
      PIPELINE_RESULT_TTL_DAYS: 30,
      UNANSWERED_ESCALATION_CHECK_MINUTES: 60,
      UNANSWERED_ESCALATION_DAYS: 16,
      SEARCH_CACHE_MAX: 500,
      SEARCH_CACHE_TTL_SECONDS: 3600,
      SEARCH_SUGGEST_RATE_LIMIT: 30,
      SEARCH_LOG_RETENTION_DAYS: 90,
      PORT: 3000,
      NODE_ENV: 'development',
    });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('converts numbers and booleans from strings', () => {
    const c = loadConfig({ PORT: '8080', MIGRATE_ON_START: 'false', AUTO_ANSWER_APPROVE_THRESHOLD: '0.9' });
    expect(c.PORT).toBe(8080);
    expect(c.MIGRATE_ON_START).toBe(false);
    expect(c.AUTO_ANSWER_APPROVE_THRESHOLD).toBe(0.9);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '  ' }).PORT).toBe(3000);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['AUTO_ANSWER_APPROVE_THRESHOLD', '1.5'],
    ['FAQ_VERIFY_THRESHOLD', '0'],
    ['FAQ_VERIFY_THRESHOLD', '2.5'],
    ['AUTO_ANSWER_BATCH_SIZE', '20.9'],
    ['SEARCH_HNSW_EF_SEARCH', '5'],
    ['SEARCH_HNSW_EF_SEARCH', '2000'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['AUTO_ANSWER_PROVIDER', 'mistral'],
    ['DATABASE_URL', 'mysql://x'],
    ['JWT_SECRET', 'short'],
    ['ENCRYPTION_KEY', 'abcd'],
    ['CONF_TOPIC_BLACKLIST', 'ok,(unclosed'],
    ['CONF_INGEST_RETRY_DELAY_SECONDS', '0'],
    ['JOB_SUPERVISE_INTERVAL_SECONDS', '0'],
    ['JOB_QUEUE_POOL_MAX', '0'],
    ['FAQ_FRESHNESS_CRON_SCHEDULE', 'every day'],
    ['FAQ_FRESHNESS_CRON_SCHEDULE', '0 6 * * 99'],
    ['FAQ_FRESHNESS_CRON_SCHEDULE', '61 * * * *'],
    ['FAQ_FRESHNESS_CRON_SCHEDULE', '0 0 6 * * *'],
    // Values that passed and failed later, naming nothing (or were used as something else).
    ['TRUST_PROXY', 'garbage!!'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.0/255.0.255.0'],
    ['HOST', '999.1.1.1'],
    ['HOST', 'not a host'],
    ['OPENAI_BASE_URL', 'not-a-url'],
    ['ANTHROPIC_BASE_URL', 'api.anthropic.com'],
    ['GEMINI_BASE_URL', 'file:///etc/passwd'],
    ['CONF_OAUTH_BASE_URL', 'nope'],
    ['CONF_API_BASE_URL', 'ftp://x'],
    ['CONF_REDIRECT_URI', 'not a url'],
    // Base URLs the clients cannot use (fetch refuses credentials; paths are appended after a query or
    // fragment), which the admin's PATCH refuses too.
    ['OPENAI_BASE_URL', 'https://user:secret@api.example.com/v1'],
    ['OPENAI_BASE_URL', 'https://api.example.com/v1?key=zzz'],
    ['ANTHROPIC_BASE_URL', 'https://api.example.com/v1?'],
    ['GEMINI_BASE_URL', 'https://api.example.com/v1#frag'],
    ['CONF_API_BASE_URL', 'https://api.example.com:0/v2'],
    ['CONF_REDIRECT_URI', 'https://app.example.com/callback#x'],
    ['CORS_ORIGINS', 'not a url'],
    ['CORS_ORIGINS', 'https://app.example.com,app.example.com'],
    ['CORS_ORIGINS', 'https://app.example.com/path'],
    ['CORS_ORIGINS', 'https://App.example.com'],
    ['OLLAMA_HOST', 'not a host:11434'],
    ['OLLAMA_HOST', 'ftp://ollama:11434'],
    ['CONF_DOWNLOAD_HOSTS', 'zoom.us,https://zoom.us'],
    ['ADMIN_EMAIL', 'not-an-email'],
    ['ADMIN_EMAIL', 'admin@'],
    ['ADMIN_EMAIL', 'two words@example.com'],
    ['ADMIN_PASSWORD', 'x'],
    ['ADMIN_PASSWORD', 'y'.repeat(129)],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', 'postgres://db.example.com'],
    ['DATABASE_URL', 'postgres:///community_faq'],
    ['AUTO_ANSWER_APPROVE_THRESHOLD', '0x1'],
    ['AUTO_ANSWER_MIN_POST_AGE_HOURS', '0x10'],
    ['FAQ_ESCALATION_DAYS', 'Infinity'],
    ['RETENTION_INTERVAL_HOURS', '1e2'],
    // Windows and intervals past ten years passed and failed later (an invalid Date on every
    // escalation run, a pg-boss INTERVAL of 6e+24 minutes after the worker's migrations).
    ['AUTO_ANSWER_INTERVAL_HOURS', '100000000000000000000000'],
    ['AUTO_ANSWER_INTERVAL_HOURS', '87601'],
    ['FAQ_AUDIT_INTERVAL_HOURS', '87601'],
    ['RETENTION_INTERVAL_HOURS', '87601'],
    ['PROMOTION_INTERVAL_MINUTES', '5256001'],
    ['UNANSWERED_ESCALATION_CHECK_MINUTES', '5256001'],
    ['UNANSWERED_ESCALATION_DAYS', '99999999999999'],
    ['AUTO_ANSWER_MIN_POST_AGE_HOURS', '87601'],
    ['AUTO_ANSWER_COOLDOWN_HOURS', '87601'],
    ['PROMOTION_OBJECTION_WINDOW_HOURS', '87601'],
    ['FAQ_ESCALATION_DAYS', '3651'],
    // Under a minute was rounded up to one minute without a word.
    ['AUTO_ANSWER_INTERVAL_HOURS', '0.01'],
    ['FAQ_AUDIT_INTERVAL_HOURS', '0.001'],
    ['RETENTION_INTERVAL_HOURS', '0.016'],
    ['PROMOTION_INTERVAL_MINUTES', '0.5'],
    ['UNANSWERED_ESCALATION_CHECK_MINUTES', '0.99'],
    // A token with a space was taken and could never be presented as `Bearer <token>`.
    ['METRICS_TOKEN', 'two words'],
    ['METRICS_TOKEN', 'tab\tinside'],
    ['METRICS_TOKEN', 'jeton-été'],
  ])('a bad %s stops with an error naming it', (setting, value) => {
    let caught: unknown;
    try {
      loadConfig({ [setting]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).setting).toBe(setting);
    expect((caught as Error).message).toContain(setting);
  });

  it('never echoes a URL with credentials in it; a redirect URI may carry a query', () => {
    expect(() => loadConfig({ OPENAI_BASE_URL: 'https://user:secret@api.example.com/v1' })).toThrow(/OPENAI_BASE_URL/);
    try {
      loadConfig({ OPENAI_BASE_URL: 'https://user:secret@api.example.com/v1' });
    } catch (err) {
      expect((err as Error).message).not.toContain('secret');
    }
    try {
      loadConfig({ GEMINI_BASE_URL: 'https://api.example.com/v1?key=SECRETKEY' });
    } catch (err) {
      expect((err as Error).message).toContain('GEMINI_BASE_URL');
      expect((err as Error).message).not.toContain('SECRETKEY');
    }
    expect(loadConfig({ CONF_REDIRECT_URI: 'https://app.example.com/callback?from=conf' }).CONF_REDIRECT_URI).toContain('?from=conf');
  });

  it('shows the value of a cost or limit named like a secret, and says what is wrong with a 64-character key', () => {
    expect(() => loadConfig({ PASSWORD_HASH_PARALLELISM: '0' })).toThrow(/\(value: "?0"?\)/);
    expect(() => loadConfig({ ENCRYPTION_KEY: `${'0f'.repeat(31)}zz` })).toThrow(/64 characters but is not hex/);
  });

  it('never echoes a secret value in the error', () => {
    expect(() => loadConfig({ JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
    try {
      loadConfig({ ENCRYPTION_KEY: 'not-a-valid-key-value' });
    } catch (err) {
      expect((err as Error).message).not.toContain('not-a-valid-key-value');
    }
  });

  it("refuses a password-hash cost under OWASP's argon2id floor in production only", () => {
    const prod = { NODE_ENV: 'production', JWT_SECRET: jwt, ENCRYPTION_KEY: key };
    expect(() => loadConfig({ ...prod, PASSWORD_HASH_MEMORY_KIB: '1024' })).toThrow(/PASSWORD_HASH_MEMORY_KIB/);
    expect(() => loadConfig({ ...prod, PASSWORD_HASH_ITERATIONS: '1' })).toThrow(/PASSWORD_HASH_ITERATIONS/);
    expect(loadConfig({ ...prod, PASSWORD_HASH_MEMORY_KIB: '19456', PASSWORD_HASH_ITERATIONS: '2' }).PASSWORD_HASH_MEMORY_KIB).toBe(19456);
    expect(loadConfig({ PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '1' }).PASSWORD_HASH_ITERATIONS).toBe(1);
    expect(() => loadConfig({ PASSWORD_HASH_MEMORY_KIB: '512' })).toThrow(/PASSWORD_HASH_MEMORY_KIB/);
  });

  it('requires JWT_SECRET and ENCRYPTION_KEY in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: key })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: jwt })).toThrow(/ENCRYPTION_KEY/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: jwt, ENCRYPTION_KEY: key }).NODE_ENV).toBe('production');
  });

  it('accepts intervals and windows from one minute up to ten years in their unit', () => {
    const c = loadConfig({
      AUTO_ANSWER_INTERVAL_HOURS: '87600',
      FAQ_AUDIT_INTERVAL_HOURS: '0.0167',
      RETENTION_INTERVAL_HOURS: '0.5',
      PROMOTION_INTERVAL_MINUTES: '1',
      UNANSWERED_ESCALATION_CHECK_MINUTES: '5256000',
      UNANSWERED_ESCALATION_DAYS: '87600',
      AUTO_ANSWER_COOLDOWN_HOURS: '0',
      FAQ_ESCALATION_DAYS: '3650',
    });
    expect(c).toMatchObject({ AUTO_ANSWER_INTERVAL_HOURS: 87600, FAQ_AUDIT_INTERVAL_HOURS: 0.0167, UNANSWERED_ESCALATION_DAYS: 87600 });
    expect(() => loadConfig({ PROMOTION_INTERVAL_MINUTES: '0.5' })).toThrow(
      /^Invalid setting PROMOTION_INTERVAL_MINUTES: must be at least 1: jobs are scheduled in whole minutes/,
    );
  });

  it('refuses a METRICS_TOKEN no client could send as a bearer token, naming it without echoing it', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'my metrics token' })).toThrow(
      /^Invalid setting METRICS_TOKEN: must be printable ASCII without spaces/,
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'my metrics token' })).not.toThrow(/my metrics/);
    expect(loadConfig({ METRICS_TOKEN: ' abc-DEF_123.~+/= ' }).METRICS_TOKEN).toBe('abc-DEF_123.~+/=');
  });

  it('refuses placeholder secrets in production only: one letter repeated, one byte repeated', () => {
    const prod = { NODE_ENV: 'production', JWT_SECRET: jwt, ENCRYPTION_KEY: key };
    expect(() => loadConfig({ ...prod, JWT_SECRET: 'a'.repeat(32) })).toThrow(
      /^Invalid setting JWT_SECRET: must have at least 8 distinct characters/,
    );
    expect(() => loadConfig({ ...prod, JWT_SECRET: 'abcabcabcabcabcabcabcabcabcabcab' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ ...prod, ENCRYPTION_KEY: '0'.repeat(64) })).toThrow(/^Invalid setting ENCRYPTION_KEY: must be random bytes/);
    expect(() => loadConfig({ ...prod, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') })).toThrow(/ENCRYPTION_KEY/);
    expect(loadConfig({ ...prod, JWT_SECRET: 'abcdefgh'.repeat(4) }).JWT_SECRET).toBe('abcdefgh'.repeat(4));
    // Outside production the same values start (tests and local runs use fixed secrets).
    expect(() => loadConfig({ JWT_SECRET: 'a'.repeat(32), ENCRYPTION_KEY: '0'.repeat(64) })).not.toThrow();
  });

  it('accepts a base64 encryption key of 32 bytes, and refuses text that only decodes to 32 bytes', () => {
    expect(() => loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') })).not.toThrow();
    expect(() => loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32, 250).toString('base64url') })).not.toThrow();
    // Node's decoder skips what is not base64: these decoded to 32 bytes and were taken.
    expect(() => loadConfig({ ENCRYPTION_KEY: `${Buffer.alloc(32, 7).toString('base64')}!!` })).toThrow(/ENCRYPTION_KEY/);
    expect(() => loadConfig({ ENCRYPTION_KEY: `my key: ${Buffer.alloc(32, 7).toString('base64')}` })).toThrow(/ENCRYPTION_KEY/);
  });

  it('refuses a suggest threshold above the approve threshold', () => {
    expect(() => loadConfig({ AUTO_ANSWER_SUGGEST_THRESHOLD: '0.9' })).toThrow(/AUTO_ANSWER_SUGGEST_THRESHOLD/);
  });

  it('names the setting whose number is not decimal, not the one it is compared with', () => {
    // Read as 0, "0x1" made the suggest threshold exceed it, and the error named AUTO_ANSWER_SUGGEST_THRESHOLD.
    expect(() => loadConfig({ AUTO_ANSWER_APPROVE_THRESHOLD: '0x1' })).toThrow(
      /^Invalid setting AUTO_ANSWER_APPROVE_THRESHOLD: must be a decimal number.*"0x1"/,
    );
    expect(() => loadConfig({ AUTO_ANSWER_APPROVE_THRESHOLD: '0.5' })).toThrow(
      /AUTO_ANSWER_SUGGEST_THRESHOLD: must not exceed AUTO_ANSWER_APPROVE_THRESHOLD \(0\.6 > 0\.5\)/,
    );
    expect(loadConfig({ AUTO_ANSWER_APPROVE_THRESHOLD: '.9', AUTO_ANSWER_MIN_POST_AGE_HOURS: '1.5' })).toMatchObject({
      AUTO_ANSWER_APPROVE_THRESHOLD: 0.9,
      AUTO_ANSWER_MIN_POST_AGE_HOURS: 1.5,
    });
  });

  it('lists the allowed values of a setting that takes one of a few', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL: must be one of: fatal, error, warn, info, debug, trace, silent/);
  });

  it('never echoes the database URL or the admin password, which hold secrets', () => {
    for (const [setting, value] of [
      ['DATABASE_URL', 'postgres://user:hunter2@db.example.com'],
      ['ADMIN_PASSWORD', 'hunter2'],
    ] as const) {
      expect(() => loadConfig({ [setting]: value })).toThrow(setting);
      try {
        loadConfig({ [setting]: value });
      } catch (err) {
        expect((err as Error).message).not.toContain('hunter2');
      }
    }
  });

  it('accepts the forms the README, docker-compose and the tests use', () => {
    const c = loadConfig({
      HOST: '127.0.0.1',
      TRUST_PROXY: '10.0.0.0/8, 192.168.0.0/255.255.0.0, ::1, fd00::/8, loopback',
      CORS_ORIGINS: 'https://app.example.com, https://admin.example.com/, http://localhost:5173',
      DATABASE_URL: 'postgres://user:pass@host:5432/community_faq',
      ADMIN_EMAIL: 'admin@localhost',
      ADMIN_PASSWORD: 'a long passphrase',
      OLLAMA_HOST: 'http://ollama:11434',
      CONF_REDIRECT_URI: 'http://localhost:5173/conf/callback',
      CONF_DOWNLOAD_HOSTS: 'zoom.us,*.zoom.us,127.0.0.1',
    });
    expect(c.HOST).toBe('127.0.0.1');
    // A password keeps its spaces, as registration keeps them: the admin signs in with what was set.
    expect(loadConfig({ ADMIN_PASSWORD: ' 1234567' }).ADMIN_PASSWORD).toBe(' 1234567');
    expect(loadConfig({ ADMIN_PASSWORD: 'my admin pass  ' }).ADMIN_PASSWORD).toBe('my admin pass  ');
    // Characters, as registration counts them: 100 emoji are 100, 4 are too few.
    expect(loadConfig({ ADMIN_PASSWORD: '😀'.repeat(100) }).ADMIN_PASSWORD).toBe('😀'.repeat(100));
    expect(() => loadConfig({ ADMIN_PASSWORD: '😀'.repeat(4) })).toThrow(/ADMIN_PASSWORD/);
    for (const value of ['true', 'false', '2']) expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY).toBe(value);
    // Any case, as the boolean settings take it.
    expect(loadConfig({ TRUST_PROXY: 'TRUE' }).TRUST_PROXY).toBe('true');
    expect(loadConfig({ TRUST_PROXY: 'False' }).TRUST_PROXY).toBe('false');
    for (const host of ['0.0.0.0', '::', 'localhost', 'api', 'my_app-1.internal']) expect(loadConfig({ HOST: host }).HOST).toBe(host);
    expect(loadConfig({ CORS_ORIGINS: '*' }).CORS_ORIGINS).toBe('*');
    expect(loadConfig({ DATABASE_URL: 'postgresql:///community_faq?host=/var/run/postgresql' }).DATABASE_URL).toBeDefined();
    expect(loadConfig({ ADMIN_EMAIL: 'you@example.com' }).ADMIN_EMAIL).toBe('you@example.com');
    expect(() => loadConfig(TEST_ENV)).not.toThrow();
  });

  it('accepts every default that .env.example lists', () => {
    const text = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8');
    const env = Object.fromEntries(
      text
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(Object.keys(env).length).toBeGreaterThan(50);
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('reads OLLAMA_HOST without a scheme as the Ollama client does: http://, port 11434 when none', () => {
    expect(loadConfig({ OLLAMA_HOST: 'localhost:11434' }).OLLAMA_HOST).toBe('http://localhost:11434');
    expect(loadConfig({ OLLAMA_HOST: 'ollama' }).OLLAMA_HOST).toBe('http://ollama:11434');
    expect(loadConfig({ OLLAMA_HOST: ':11434' }).OLLAMA_HOST).toBe('http://127.0.0.1:11434');
    expect(loadConfig({ OLLAMA_HOST: 'https://ollama.example.com' }).OLLAMA_HOST).toBe('https://ollama.example.com');
  });

  it('documents every setting in the schema', () => {
    for (const [name, schema] of Object.entries(ConfigSchema.properties)) {
      expect((schema as { description?: string }).description, name).toBeTruthy();
    }
  });
});

describe('DATA_DIR', () => {
  it('is created with its missing parents and handed back as an absolute path', () => {
    const root = mkdtempSync(join(tmpdir(), 'cfaq-data-'));
    try {
      expect(ensureDataDir(join(root, 'a', 'b'))).toBe(join(root, 'a', 'b'));
      expect(ensureDataDir(join(root, 'a', 'b'))).toBe(join(root, 'a', 'b'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('that cannot be created stops with an error naming DATA_DIR', () => {
    const root = mkdtempSync(join(tmpdir(), 'cfaq-data-'));
    try {
      writeFileSync(join(root, 'file'), '');
      for (const dir of [join(root, 'file'), join(root, 'file', 'sub')]) {
        expect(() => ensureDataDir(dir)).toThrow(ConfigError);
        expect(() => ensureDataDir(dir)).toThrow(/^Invalid setting DATA_DIR: /);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // Node's recursive mkdir spins forever here (a parent that exists but cannot hold a directory);
  // the fix replaced it. apps/api/test/process.test.ts checks the same through a start of the API.
  it.runIf(process.platform === 'linux')('under /proc stops at once, naming DATA_DIR', () => {
    expect(() => ensureDataDir('/proc/cfaq-nope/data')).toThrow(/^Invalid setting DATA_DIR: cannot create or write \/proc\/cfaq-nope/);
  });
});

describe('CONF_TOPIC_BLACKLIST', () => {
  it('splits at commas outside (), [] and {n,m} and not after a backslash: a quantifier keeps its comma', () => {
    const c = loadConfig({ CONF_TOPIC_BLACKLIST: '^internal.{0,3}sync$, ^1:1' });
    expect(topicBlacklist(c).map((r) => r.source)).toEqual(['^internal.{0,3}sync$', '^1:1']);
    expect(blacklistedBy(c, 'Internal - sync')).toBe('^internal.{0,3}sync$');
    expect(blacklistedBy(c, '1:1 with Bob')).toBe('^1:1');
    // The halves the comma used to make matched topics the pattern never meant.
    expect(blacklistedBy(c, 'internal{0 planning')).toBeNull();
    expect(splitPatternList('a{2,}, [,;]x, (b,c)d, e\\,f ,, g{x,y}')).toEqual(['a{2,}', '[,;]x', '(b,c)d', 'e\\,f', 'g{x', 'y}']);
    expect(blacklistedBy(loadConfig({ CONF_TOPIC_BLACKLIST: 'standup\\, daily' }), 'Standup, daily')).toBe('standup\\, daily');
  });

  it('a pattern that does not compile stops the start, naming it', () => {
    for (const [value, named] of [
      ['ok, [unclosed', '[unclosed'],
      ['^sync{1,2}$, (a, b', '(a, b'],
      ['fine, trailing\\', 'trailing\\'],
    ] as const) {
      expect(() => loadConfig({ CONF_TOPIC_BLACKLIST: value })).toThrow(ConfigError);
      expect(() => loadConfig({ CONF_TOPIC_BLACKLIST: value })).toThrow(
        `pattern ${JSON.stringify(named)} is not a valid regular expression`,
      );
    }
  });
});
