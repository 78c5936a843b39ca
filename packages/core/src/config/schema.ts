import { type Static, Type as T } from '@sinclair/typebox';

const Int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER, description?: string) =>
  T.Integer({ default: def, minimum: min, maximum: max, ...(description ? { description } : {}) });
const Ratio = (def: number, description?: string) =>
  T.Number({ default: def, minimum: 0, maximum: 1, ...(description ? { description } : {}) });
const Bool = (def: boolean, description?: string) => T.Boolean({ default: def, ...(description ? { description } : {}) });
const Str = (description: string) => T.Optional(T.String({ minLength: 1, description }));
/**
 * Ten years in each unit: the upper bound of every time window and schedule interval. Unbounded, a
 * huge value passed startup and failed later: an invalid Date (every escalation run failed), a pg-boss
 * INTERVAL written as `6e+24` (the worker stopped after its migrations).
 */
export const TEN_YEARS = { minutes: 5_256_000, hours: 87_600, days: 3650 } as const;
/** A time window (a cooldown, an age, an escalation delay): fractions allowed, 0 up to ten years. */
const Window = (def: number, unit: 'hours' | 'days', description: string) =>
  T.Number({ default: def, minimum: 0, maximum: TEN_YEARS[unit], description: `${description} (0 to ${TEN_YEARS[unit]} ${unit})` });
/**
 * The interval of a scheduled job. pg-boss schedules at minute resolution (jobs/contract.ts rounds to
 * whole minutes), so less than a minute is refused at startup (load.ts) rather than rounded up to one.
 */
const Interval = (def: number, unit: 'hours' | 'minutes', description: string) =>
  T.Number({
    default: def,
    exclusiveMinimum: 0,
    maximum: TEN_YEARS[unit],
    description: `${description} (${unit === 'hours' ? '0.0167' : '1'} to ${TEN_YEARS[unit]} ${unit}: at least one minute, rounded to whole minutes)`,
  });
const Provider = T.Union([T.Literal('openai'), T.Literal('anthropic'), T.Literal('gemini'), T.Literal('ollama')]);

/**
 * Every setting the service reads, with the spec's defaults. `.env.example` and the README table
 * are written from the same list (`npm run env:example`; packages/core/test/env-example.test.ts keeps them in step).
 */
export const ConfigSchema = T.Object({
  // Runtime
  NODE_ENV: T.Union([T.Literal('development'), T.Literal('production'), T.Literal('test')], {
    default: 'development',
    description:
      'development, production or test; production makes JWT_SECRET and ENCRYPTION_KEY mandatory (and refuses placeholders: a JWT_SECRET of fewer than 8 distinct characters, an ENCRYPTION_KEY of one byte repeated) and the conf webhook fail closed without CONF_WEBHOOK_SECRET_TOKEN',
  }),
  HOST: T.String({ default: '0.0.0.0', description: 'IP address or host name the API listens on' }),
  PORT: Int(3000, 0, 65535, 'port the API listens on'),
  LOG_LEVEL: T.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => T.Literal(l)),
    { default: 'info', description: 'pino log level' },
  ),
  DATABASE_URL: Str(
    'PostgreSQL URL with host and database (postgres://user:password@host:5432/database); unset = embedded PGlite database under DATA_DIR',
  ),
  DATABASE_POOL_MAX: Int(10, 1, 200, 'connections per process'),
  JOB_QUEUE_POOL_MAX: Int(
    10,
    1,
    100,
    'job queue (pg-boss) connections per process, beside DATABASE_POOL_MAX: jobs sent in a transaction use its connection; the group-committed ones (JOB_SEND_BATCH_MAX > 1) hold one per queue while their INSERT runs; with JOB_SEND_BATCH_MAX=1 each conf webhook acknowledgement holds one',
  ),
  JOB_SEND_BATCH_MAX: Int(
    100,
    1,
    1000,
    'jobs sent outside a transaction (the conf webhook acknowledgements) are group-committed: those arriving while the previous INSERT is in flight go in one INSERT and commit, at most this many; 1 = one INSERT per job',
  ),
  DATA_DIR: T.String({
    default: './data',
    description: 'embedded database and generated development secrets; created at start, must be writable',
  }),
  MIGRATE_ON_START: Bool(true, 'apply pending migrations when the API or worker starts'),
  TRUST_PROXY: T.String({
    default: 'false',
    description:
      'false, true, a hop count, or comma-separated proxy addresses/CIDRs (or loopback, linklocal, uniquelocal) whose X-Forwarded-For is honoured',
  }),
  CORS_ORIGINS: T.String({
    default: '',
    description:
      'comma-separated origins (https://app.example.com) allowed to call the API from a browser, with credentials; empty = no cross-origin access; * = any origin, without credentials',
  }),
  METRICS_TOKEN: Str('when set, GET /api/metrics needs Authorization: Bearer <token> (Prometheus: authorization.credentials)'),
  BODY_LIMIT_BYTES: Int(1_048_576, 1024, 104_857_600, 'largest JSON request body'),
  UPLOAD_LIMIT_BYTES: Int(10_485_760, 1024, 104_857_600, 'largest multipart upload (transcripts)'),

  // Identity
  JWT_SECRET: Str('HMAC secret for access tokens, at least 32 characters; generated into DATA_DIR outside production'),
  JWT_ACCESS_TTL_SECONDS: Int(900, 60, 86_400, 'access token lifetime'),
  JWT_REFRESH_TTL_DAYS: Int(30, 1, 365, 'refresh token lifetime'),
  REFRESH_REUSE_GRACE_SECONDS: Int(
    0,
    0,
    300,
    'seconds after a refresh in which the same refresh token answers the same successor (a second tab or a retry; RFC 9700 4.14.2); 0 (the default, as DESIGN says: reusing an old refresh token revokes the whole family) = no grace',
  ),
  ENCRYPTION_KEY: Str('32-byte key (64 hex chars or base64) for AES-256-GCM secrets at rest; generated into DATA_DIR outside production'),
  PASSWORD_HASH_MEMORY_KIB: Int(
    65_536,
    1024,
    1_048_576,
    'argon2id memory per password hash, in KiB; production needs at least 19456 (OWASP); stored hashes made at another cost are re-hashed at sign-in',
  ),
  PASSWORD_HASH_ITERATIONS: Int(3, 1, 20, 'argon2id passes per password hash; production needs at least 2 (OWASP)'),
  PASSWORD_HASH_PARALLELISM: Int(4, 1, 16, 'argon2id lanes per password hash'),
  ADMIN_EMAIL: Str('e-mail address of the initial admin account, created at start if missing (unset = admin@localhost)'),
  ADMIN_PASSWORD: Str(
    'initial admin password, 8-128 characters as every password; if unset a password is generated and printed once (outside production; production requires it until an admin exists)',
  ),
  ADMIN_2FA_REQUIRED: T.Optional(
    T.Boolean({
      description:
        'admin routes answer 403 ADMIN_2FA_REQUIRED until the admin has enabled TOTP (the /auth/2fa routes excepted); unset = true when NODE_ENV=production, else false',
    }),
  ),

  // Rate limits (requests per window)
  RATE_LIMIT_WINDOW_SECONDS: Int(900, 1, 86_400, 'window of the login, register, password, two-factor and identity limiters'),
  RATE_LIMIT_LOGIN_MAX: Int(10, 1, 100_000, 'failed logins per window per account and client address (successful logins do not count)'),
  RATE_LIMIT_LOGIN_ADDRESS_MAX: Int(100, 1, 1_000_000, 'failed logins per window per client address, all accounts together'),
  RATE_LIMIT_REGISTER_MAX: Int(5, 1, 100_000, 'registrations per window per client'),
  RATE_LIMIT_PASSWORD_MAX: Int(5, 1, 100_000, 'password changes per window per user'),
  RATE_LIMIT_TWO_FACTOR_MAX: Int(5, 1, 100_000, 'two-factor code attempts per window'),
  RATE_LIMIT_IDENTITY_MAX: Int(20, 1, 100_000, 'identity creations (accounts, provider connections) per window per client'),
  RATE_LIMIT_ADMIN_WRITE_MAX: Int(120, 1, 100_000, 'admin writes per minute per admin and route (each admin route counts its own)'),
  RATE_LIMIT_USER_BURST_MAX: Int(300, 1, 10_000_000, 'requests per minute per user or client, every route'),
  RATE_LIMIT_SUGGEST_MAX: Int(10, 1, 100_000, 'FAQ suggestions (POST /faq/suggest) per hour per user'),
  RATE_LIMIT_FLAG_MAX: Int(20, 1, 100_000, 'FAQ flags, and separately FAQ reports, per hour per user'),
  SEARCH_SUGGEST_RATE_LIMIT: Int(30, 1, 100_000, 'search suggestions per minute (spec: 30)'),
  LOG_INGEST_RATE_LIMIT: Int(60, 1, 100_000, 'frontend log posts per minute per client'),
  LOG_INGEST_MAX_BYTES: Int(16_384, 256, 1_048_576, 'largest frontend log body'),

  // Search
  SEARCH_CACHE_MAX: Int(500, 0, 1_000_000, 'result cache entries (spec: 500)'),
  SEARCH_CACHE_TTL_SECONDS: Int(3600, 1, 86_400, 'result cache lifetime (spec: 1 hour)'),
  SEARCH_LOG_FLUSH_MS: Int(2000, 50, 600_000, 'search log buffer flush interval'),
  SEARCH_LOG_RETENTION_DAYS: Int(90, 1, 3650, 'search log retention (spec: 90 days)'),
  SEARCH_SUGGEST_MIN_USERS: Int(
    3,
    1,
    16,
    'distinct users or clients that must have searched a query before suggestions, trending or the public unresolved list show it',
  ),
  SEARCH_STATS_REFRESH_MINUTES: Int(15, 1, 1440, 'interval of the job copying word frequencies for search weights'),
  SEARCH_HNSW_EF_SEARCH: Int(
    150,
    10,
    1000,
    "candidate list of each vector sub-search in the HNSW index (hnsw.ef_search): higher finds more of the true nearest rows (recall) for more time per search; bench/search measures both. Past 100,000 FAQs the FAQ lists' grows in proportion to the table's rows (450 at 300,000, at most 1000), as a larger graph needs a longer list for the same recall. Posts have their own (SEARCH_HNSW_EF_SEARCH_POSTS)",
  ),
  SEARCH_HNSW_EF_SEARCH_POSTS: Int(
    60,
    10,
    1000,
    'candidate list of every vector sub-search over community posts (hnsw.ef_search): posts are embedded from their short titles, whose graph reaches recall@5 0.98 at 60 where the FAQ graph needs 150 (bench/search)',
  ),
  ANALYTICS_ROLLUP_INTERVAL_MINUTES: Int(
    60,
    1,
    1440,
    'interval of the job rolling search logs up into the daily tables the dashboards read (complete UTC days; today is always read live)',
  ),
  EMBEDDER: T.Union([T.Literal('auto'), T.Literal('sentence'), T.Literal('local'), T.Literal('ollama')], {
    default: 'auto',
    description:
      'auto = ollama when OLLAMA_HOST is set, else sentence; sentence = lexical hashing + GloVe + the Universal Sentence Encoder lite (offline, shipped in npm); local = lexical hashing + GloVe only (the earlier default). A change re-embeds every row (search.embeddings-backfill job)',
  }),
  EMBEDDER_LAYOUT: T.Union([T.Literal('joined'), T.Literal('replace')], {
    default: 'joined',
    description: 'sentence embedder: joined = hashing + GloVe + sentence encoder; replace = hashing + sentence encoder (no GloVe)',
  }),
  OLLAMA_EMBED_MODEL: T.String({ default: 'nomic-embed-text', description: '768-dimension Ollama embedding model' }),

  // AI providers (auto-detected in this order)
  OPENAI_API_KEY: Str('OpenAI key'),
  OPENAI_BASE_URL: T.String({ default: 'https://api.openai.com/v1', description: 'OpenAI API base URL' }),
  ANTHROPIC_API_KEY: Str('Anthropic key'),
  ANTHROPIC_BASE_URL: T.String({ default: 'https://api.anthropic.com', description: 'Anthropic API base URL' }),
  GEMINI_API_KEY: Str('Gemini key'),
  GEMINI_BASE_URL: T.String({ default: 'https://generativelanguage.googleapis.com', description: 'Gemini API base URL' }),
  OLLAMA_HOST: Str(
    'Ollama URL, e.g. http://127.0.0.1:11434 (embeddings and generation); host:port alone means http://, a host alone port 11434, as the Ollama client reads it',
  ),
  OLLAMA_API_KEY: Str(
    "Ollama key, for an Ollama behind an authenticating proxy: sent as a bearer token to OLLAMA_HOST's origin only, by the embedder and by generation (the admin config's Ollama key applies to generation)",
  ),
  AI_TIMEOUT_MS: Int(30_000, 100, 600_000, 'timeout of one AI provider attempt (each retry gets its own)'),
  AI_MAX_RETRIES: Int(
    2,
    0,
    10,
    'retries of a failed AI call (429, 5xx, timeout, malformed or schema-invalid reply) before it counts as failed',
  ),
  AI_RETRY_BASE_MS: Int(500, 0, 60_000, 'first retry delay; doubles per retry, a retry-after header wins (capped at 30 s)'),
  AI_MAX_OUTPUT_TOKENS: Int(1024, 16, 32_000, 'output-token cap of every AI call (a call may ask for less)'),
  OPENAI_API: T.Union([T.Literal('responses'), T.Literal('chat')], {
    default: 'responses',
    description: 'OpenAI endpoint: responses (/v1/responses) or chat (/v1/chat/completions, also for OpenAI-compatible servers)',
  }),
  OPENAI_MODEL: T.String({ default: 'gpt-4o-mini', description: 'OpenAI model when a pipeline names none' }),
  ANTHROPIC_MODEL: T.String({ default: 'claude-haiku-4-5', description: 'Anthropic model when a pipeline names none' }),
  GEMINI_MODEL: T.String({ default: 'gemini-2.5-flash', description: 'Gemini model when a pipeline names none' }),
  OLLAMA_MODEL: T.String({ default: 'llama3.1', description: 'Ollama chat model when a pipeline names none' }),

  // Auto-answer pipeline
  AUTO_ANSWER_APPROVE_THRESHOLD: Ratio(0.85, 'minimum confidence to auto-post'),
  AUTO_ANSWER_SUGGEST_THRESHOLD: Ratio(0.6, 'minimum confidence to queue for review'),
  AUTO_ANSWER_BATCH_SIZE: Int(20, 1, 1000, 'posts per run'),
  AUTO_ANSWER_MIN_POST_AGE_HOURS: Window(2, 'hours', 'minimum post age'),
  AUTO_ANSWER_INTERVAL_HOURS: Interval(24, 'hours', 'scheduler interval'),
  AUTO_ANSWER_COOLDOWN_HOURS: Window(24, 'hours', 'no new attempt on a post within this many hours of the last'),
  AUTO_ANSWER_PROVIDER: T.Optional(
    T.Union(Provider.anyOf, { description: 'openai, anthropic, gemini or ollama; auto-detected from configured keys when unset' }),
  ),
  AUTO_ANSWER_MODEL: Str('model name; provider default when unset'),
  AUTO_ANSWER_SENSITIVE_TOPICS: T.String({
    default: 'self-harm,medical,legal,harassment,payment disputes,personal data',
    description:
      'comma-separated sensitive topics that force escalation; the six default names expand to built-in word lists (README), any other entry matches as a phrase, each word also in its inflections',
  }),
  AUTO_ANSWER_CONCURRENCY: Int(10, 1, 100, 'posts of one run answered at once (bounded provider concurrency)'),
  AUTO_ANSWER_KNOWLEDGE_MIN_SCORE: Ratio(
    0.8,
    'knowledge-base similarity from which a hit counts as a semantic match (confidence = score x 0.9)',
  ),

  // FAQ audit pipeline
  FAQ_AUDIT_BATCH_SIZE: Int(20, 1, 1000, 'FAQs per run'),
  FAQ_AUDIT_KNOWLEDGE_MIN_SCORE: Ratio(
    0.8,
    "knowledge-base similarity from which a passage counts as context for the audit (below it the FAQ has no context: stale when old and never verified); the search's 0.80 vector cutoff",
  ),
  FAQ_AUDIT_FLAG_THRESHOLD: Ratio(
    0.8,
    'score below this flags (the correct/drift_detected boundary; the spec lists 0.65 but its verdict table flags every score below 0.80, see README "FAQ audit")',
  ),
  FAQ_AUDIT_CONTRADICTION_THRESHOLD: Ratio(0.6, "score below this is a contradiction (the verdict table's 0.60)"),
  FAQ_AUDIT_INTERVAL_HOURS: Interval(6, 'hours', 'scheduler interval'),
  FAQ_AUDIT_PROVIDER: T.Optional(
    T.Union(Provider.anyOf, { description: 'openai, anthropic, gemini or ollama; auto-detected from configured keys when unset' }),
  ),
  FAQ_AUDIT_MODEL: Str('model name; provider default when unset'),
  FAQ_AUDIT_MIN_CONFIDENCE: Ratio(0.35, 'AI confidence below this gives verdict skipped (no flag)'),
  FAQ_AUDIT_STALE_DAYS: Int(180, 1, 3650, 'an FAQ older than this, never verified and without knowledge context is stale'),

  // Freshness review
  FAQ_VERIFY_THRESHOLD: Int(3, 1, 1000, 'votes to verify or escalate'),
  FAQ_ESCALATION_DAYS: Window(3, 'days', 'days in pending_review before auto-escalation'),
  FAQ_SEASONAL_DAYS: Int(15, 1, 3650, 'seasonal review interval'),
  FAQ_VOLATILE_DAYS: Int(4, 1, 3650, 'volatile review interval'),
  FAQ_FRESHNESS_CRON_SCHEDULE: T.String({ default: '0 6 * * *', description: 'cron (UTC) of the freshness check, default 06:00 daily' }),

  // Notifications stream (SSE)
  NOTIFICATION_STREAM_HEARTBEAT_MS: Int(15_000, 1000, 300_000, 'SSE heartbeat comment interval of GET /notifications/stream'),
  NOTIFICATION_STREAM_POLL_MS: Int(
    5000,
    200,
    300_000,
    'SSE safety-net poll of connected users for new notifications (LISTEN/NOTIFY delivers at once on PostgreSQL; the embedded database relies on this poll)',
  ),

  // Retention and other schedules
  PIPELINE_RESULT_TTL_DAYS: Int(30, 1, 3650, 'PipelineResult retention'),
  TEA_WITHDRAWAL_RETENTION_DAYS: Int(
    30,
    1,
    3650,
    'days a withdrawn tea drop keeps its place in the notification stream (a client whose last event it was resumes after it; older, it starts from now)',
  ),
  RETENTION_INTERVAL_HOURS: Interval(24, 'hours', 'retention job interval'),
  PROMOTION_INTERVAL_MINUTES: Interval(15, 'minutes', 'community FAQ promotion cycle'),
  PROMOTION_OBJECTION_WINDOW_HOURS: Window(48, 'hours', 'community-pending FAQs are promoted after this long without objection'),
  PROMOTION_MIN_SUPPORT: Int(
    3,
    0,
    100000,
    'net votes (upvotes - downvotes) a converted post needs for its community FAQ to be nominated and promoted automatically',
  ),
  RETENTION_BATCH_SIZE: Int(5000, 100, 100000, 'rows the retention job deletes per statement (each its own short transaction)'),
  UNANSWERED_ESCALATION_CHECK_MINUTES: Interval(60, 'minutes', 'escalation interval'),
  UNANSWERED_ESCALATION_DAYS: T.Number({
    default: 16,
    exclusiveMinimum: 0,
    // Read as hours (see its description), so bounded by ten years in hours.
    maximum: TEN_YEARS.hours,
    description: `unanswered window of the time-trial; the spec describes it as 16 hours, so the value is read as hours (above 0, at most ${TEN_YEARS.hours})`,
  }),
  UNANSWERED_ESCALATION_COMMENTS: Int(3, 1, 1000, 'unanswered comments that escalate a post'),
  JOB_SUPERVISE_INTERVAL_SECONDS: Int(
    60,
    1,
    3600,
    'how often a worker fails expired jobs and jobs whose worker stopped heartbeating (killed mid-job), so they are retried',
  ),

  // Meeting provider (conf)
  CONF_CLIENT_ID: Str('OAuth client id (required for the conf integration)'),
  CONF_CLIENT_SECRET: Str('OAuth client secret (required for the conf integration)'),
  CONF_REDIRECT_URI: Str(
    'OAuth callback override; unset = http://localhost:PORT/api/conf/auth/callback (development): set the public callback URL in production',
  ),
  CONF_WEBHOOK_SECRET_TOKEN: Str('webhook signing secret (required in production: fail-closed)'),
  CONF_TOPIC_BLACKLIST: T.String({
    default: '',
    description:
      'comma-separated regex patterns (a comma inside (), [] or {n,m}, or after a backslash, belongs to the pattern); matching topics are skipped',
  }),
  CONF_OAUTH_BASE_URL: T.String({ default: 'https://zoom.us', description: 'provider OAuth base URL' }),
  CONF_API_BASE_URL: T.String({ default: 'https://api.zoom.us/v2', description: 'provider REST API base URL' }),
  CONF_DOWNLOAD_HOSTS: T.String({
    default: 'zoom.us,*.zoom.us',
    description: 'hosts transcript downloads may use (the bearer token is sent to no other)',
  }),
  CONF_DOWNLOAD_MAX_BYTES: Int(10_485_760, 1024, 104_857_600, 'largest transcript download'),
  CONF_DOWNLOAD_TIMEOUT_MS: Int(30_000, 1000, 600_000, 'transcript download timeout'),
  CONF_INGEST_RETRY_DELAY_SECONDS: Int(
    30,
    1,
    3600,
    'delay before the first retry of a failed or abandoned transcript ingestion job (doubling, with jitter, on each further retry)',
  ),
});

export type Config = Static<typeof ConfigSchema>;
export type ConfigKey = keyof Config;
export type AiProviderName = Static<typeof Provider>;
export const AI_PROVIDERS: readonly AiProviderName[] = ['openai', 'anthropic', 'gemini', 'ollama'];
