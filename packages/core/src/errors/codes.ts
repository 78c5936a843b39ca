/**
 * Every error code the service answers with: its HTTP status and a title (what it means to a client).
 * The error factories accept only these codes, the OpenAPI document lists them on the Problem schema,
 * and the README's table is written from this list (`npm run errors:table`).
 *
 * Adding a code: one line here, in its status group; then `npm run errors:table`.
 * A code answered with two statuses lists both (the first is its usual one).
 */
export const ERROR_CODES = {
  // 400: the request itself is wrong
  VALIDATION_FAILED: { status: 400, title: 'A field of the request is invalid; `errors` names each one' },
  INVALID_JSON: { status: 400, title: 'The body is not valid JSON' },
  INVALID_BODY: { status: 400, title: 'The body is empty or unreadable' },
  INVALID_CONTENT_LENGTH: { status: 400, title: 'The Content-Length header does not match the body' },
  INVALID_URL: { status: 400, title: 'The URL is malformed' },
  BAD_REQUEST: { status: 400, title: 'The request is malformed' },
  VALUE_OUT_OF_RANGE: { status: 400, title: 'A value is out of range or malformed (the database refused it)' },
  QUERY_TOO_SHORT: { status: 400, title: 'The query is too short to compare' },
  WRONG_PASSWORD: { status: 400, title: 'The current password is incorrect' },
  INVALID_TWO_FACTOR_CODE: {
    status: [400, 401],
    title: 'The two-factor code is wrong, expired or already used (401 when signing in)',
  },
  INVALID_OAUTH_STATE: { status: 400, title: 'The OAuth state is expired, tampered with, reused or another user’s' },
  OAUTH_CODE_REJECTED: { status: 400, title: 'The meeting provider refused the authorization code' },
  OAUTH_AUTHORIZATION_ERROR: {
    status: 400,
    title: 'The meeting provider sent back an error instead of a code (access_denied: the user declined the connection)',
  },
  INVALID_VTT: { status: 400, title: 'The file is not a readable WebVTT transcript' },

  // 401: who is calling is not established
  UNAUTHORIZED: { status: 401, title: 'Sign-in required' },
  INVALID_TOKEN: { status: 401, title: 'The access token is invalid or expired' },
  INVALID_CREDENTIALS: { status: 401, title: 'Email or password is incorrect' },
  INVALID_REFRESH_TOKEN: { status: 401, title: 'The refresh token is invalid, expired or revoked' },
  REFRESH_TOKEN_REUSED: { status: 401, title: 'A spent refresh token was used again; its sign-in was revoked' },
  INVALID_CHALLENGE: { status: 401, title: 'The two-factor challenge token is invalid or expired' },
  INVALID_SIGNATURE: { status: 401, title: 'The webhook signature or its timestamp was rejected' },
  METRICS_TOKEN_REQUIRED: { status: 401, title: 'The metrics endpoint needs METRICS_TOKEN as bearer token' },

  // 403: the caller is known but not allowed
  FORBIDDEN: { status: 403, title: 'The caller’s role does not allow this' },
  ACCOUNT_SUSPENDED: { status: 403, title: 'The account is suspended' },
  ADMIN_2FA_REQUIRED: { status: 403, title: 'Admin routes need two-factor authentication enabled first' },
  TWO_FACTOR_ADMIN_ONLY: { status: 403, title: 'Two-factor authentication is for admins' },
  NOT_POST_OWNER: { status: 403, title: 'Only the post’s author (or a moderator) can do this' },
  CANNOT_VOTE_OWN: { status: 403, title: 'No votes on one’s own content' },

  // 404: not there (or not visible to this caller)
  NOT_FOUND: { status: 404, title: 'The resource does not exist' },
  ROUTE_NOT_FOUND: { status: 404, title: 'No such route' },
  USER_NOT_FOUND: { status: 404, title: 'No such user' },
  POST_NOT_FOUND: { status: 404, title: 'No such post' },
  COMMENT_NOT_FOUND: { status: 404, title: 'No such comment' },
  FAQ_NOT_FOUND: { status: 404, title: 'No such FAQ' },
  PROGRAM_NOT_FOUND: { status: 404, title: 'No such program' },
  API_KEY_NOT_FOUND: { status: 404, title: 'No stored API key for this provider (or it does not decrypt)' },
  UNRESOLVED_SEARCH_NOT_FOUND: { status: 404, title: 'No such unresolved search' },
  BADGE_NOT_HELD: { status: 404, title: 'The user does not hold this badge' },
  NOTIFICATION_NOT_FOUND: { status: 404, title: 'No such notification' },
  TEA_DROP_NOT_FOUND: { status: 404, title: 'No such tea drop' },
  INSIGHT_NOT_FOUND: { status: 404, title: 'No such insight' },
  MEETING_NOT_FOUND: { status: 404, title: 'No such meeting' },
  KNOWLEDGE_NOT_FOUND: { status: 404, title: 'No such knowledge item' },
  REPORT_NOT_FOUND: { status: 404, title: 'No such FAQ report' },

  // 409: conflicts with what exists
  EMAIL_TAKEN: { status: 409, title: 'An account with this email exists' },
  REFERENCE_GONE: { status: 409, title: 'A record this request refers to was deleted meanwhile' },
  TWO_FACTOR_ALREADY_ENABLED: { status: 409, title: 'Two-factor authentication is already enabled' },
  POST_ALREADY_CONVERTED: { status: 409, title: 'The post was already converted to a FAQ' },
  PROGRAM_SLUG_TAKEN: { status: 409, title: 'Another program took this slug' },
  BADGE_ALREADY_HELD: { status: 409, title: 'The user already holds this badge in this program' },
  CONF_ACCOUNT_IN_USE: { status: 409, title: 'The provider account is connected to another user' },
  INSIGHT_ALREADY_CONVERTED: { status: 409, title: 'The insight was already converted to a FAQ' },
  MEETING_PROCESSING: { status: 409, title: 'The meeting is being processed' },
  KNOWLEDGE_ALREADY_PROMOTED: { status: 409, title: 'The knowledge item was already promoted to a FAQ' },
  REPORT_ALREADY_OPEN: { status: 409, title: 'The caller already has an open report on this FAQ' },

  // 413, 415: the body's size or type
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The body or a file is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'The body’s media type is not accepted here' },

  // 422: not allowed in the current state
  LAST_ADMIN: { status: 422, title: 'The last active admin cannot be demoted, suspended or deleted' },
  CANNOT_SUSPEND_SELF: { status: 422, title: 'No one can suspend themselves' },
  NOT_SUSPENDED: { status: 422, title: 'The user is not suspended' },
  TWO_FACTOR_NOT_SET_UP: { status: 422, title: 'Two-factor setup was not started' },
  TWO_FACTOR_NOT_ENABLED: { status: 422, title: 'Two-factor authentication is not enabled' },
  POST_NOT_OPEN: { status: 422, title: 'The post is already resolved or closed' },
  POST_CLOSED: { status: 422, title: 'The post is closed to new comments' },
  POST_NOT_ESCALATED: { status: 422, title: 'Only an escalated post can be resolved or dismissed' },
  COMMENT_IS_ANSWER: { status: 422, title: 'An accepted or verified comment answers the post' },
  NO_ANSWER: { status: 422, title: 'The post has no accepted or verified answer' },
  PROGRAM_DATES_INVALID: { status: 422, title: 'The program ends before it starts' },
  PROGRAM_ARCHIVED: { status: 422, title: 'An archived program cannot be the default' },
  PROGRAM_NOT_ELIGIBLE: { status: 422, title: 'The program was archived or deleted meanwhile' },
  PROGRAM_IS_DEFAULT: { status: 422, title: 'The default program cannot be archived or deleted' },
  ALREADY_RESOLVED: { status: 422, title: 'The unresolved search is already resolved' },
  FAQ_NOT_COMMUNITY_PENDING: { status: 422, title: 'Only a community-pending (or objected) draft FAQ can be promoted or objected to' },
  FAQ_NO_ANSWER: { status: 422, title: 'The FAQ has no answer yet' },
  FAQ_STATE_CHANGED: { status: 422, title: 'The FAQ changed meanwhile; retry' },
  FAQ_NOT_UNDER_REVIEW: { status: 422, title: 'Votes are taken only while the FAQ is pending review' },
  FAQ_NOT_ESCALATED: { status: 422, title: 'Only an escalated FAQ can be verified or dismissed' },
  REPORT_NOT_OPEN: { status: 422, title: 'The FAQ report is already resolved or dismissed' },
  FAQ_UNDER_REVIEW: { status: 422, title: 'The FAQ is under review: its status moves by the review (votes, verify, dismiss), not by edit' },
  NO_AI_ANSWER: { status: 422, title: 'The post has no AI answer to review' },
  NO_PUBLISHED_AI_ANSWER: { status: 422, title: 'The post has no published AI answer' },
  NO_ANSWER_TEXT: { status: 422, title: 'There is no answer text to publish' },
  INVALID_REVIEW_TRANSITION: { status: 422, title: 'The AI answer cannot move to that state from its current one' },
  INSIGHT_CONVERTED: { status: 422, title: 'The insight was converted to a FAQ; edit the FAQ instead' },
  INSIGHT_NOT_APPROVED: { status: 422, title: 'Only an approved insight can be converted' },
  KNOWLEDGE_PROMOTED: { status: 422, title: 'A promoted knowledge item no longer changes state' },
  KNOWLEDGE_REJECTED: { status: 422, title: 'Approve the knowledge item before promoting it' },
  KNOWLEDGE_SOURCE_DELETED: { status: 422, title: 'The community post or comment the knowledge item came from was deleted' },
  FAQ_OTHER_PROGRAM: { status: 422, title: 'The FAQ belongs to another program' },
  FAQ_TEXT_INVALID: { status: 422, title: 'The default question or answer breaks the FAQ rules; send the field `errors` names' },
  FAQ_NOT_PUBLISHED: { status: 422, title: 'The FAQ is a draft: it answers nobody yet' },
  EMPTY_DOCUMENT: { status: 422, title: 'The document has no text' },
  TRANSCRIPT_TOO_SHORT: { status: 422, title: 'The transcript is too short to analyse' },
  CONF_NOT_CONNECTED: { status: 422, title: 'The meeting provider account is not connected' },
  CONF_NOT_CONFIGURED: { status: 422, title: 'The meeting provider is not configured' },

  // 429, 5xx
  RATE_LIMITED: { status: 429, title: 'Too many requests; retry after `retry-after` seconds' },
  INTERNAL_ERROR: { status: 500, title: 'An unexpected error (logged with the request id)' },
  CONF_PROVIDER_ERROR: { status: 502, title: 'The meeting provider failed' },
  CONF_CLIENT_REJECTED: {
    status: 502,
    title: 'The meeting provider refused this service’s client credentials (CONF_CLIENT_ID, CONF_CLIENT_SECRET): a configuration error',
  },
  DATABASE_UNAVAILABLE: { status: 503, title: 'The database is not answering; retry after `retry-after` seconds' },
  EMBEDDER_UNAVAILABLE: {
    status: 503,
    title: 'The embedding model is not available (unreachable, failing, or answering vectors of another size than 768); retry shortly',
  },
  KNOWLEDGE_SEARCH_UNAVAILABLE: { status: 503, title: 'The knowledge search failed; retry later' },
  QUEUE_UNAVAILABLE: { status: 503, title: 'The job could not be stored; retry later' },
  SHUTTING_DOWN: { status: 503, title: 'This server is shutting down; retry (another instance takes the request)' },
  WEBHOOK_NOT_CONFIGURED: { status: 503, title: 'Webhooks are refused: CONF_WEBHOOK_SECRET_TOKEN is not set' },
} as const satisfies Record<string, { status: number | readonly [number, ...number[]]; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Each code by name (`Code.USER_NOT_FOUND`), so code that throws refers to the registry, not to a string. */
export const Code = Object.freeze(Object.fromEntries(Object.keys(ERROR_CODES).map((c) => [c, c]))) as {
  readonly [C in ErrorCode]: C;
};

type StatusesOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]['status'] extends infer S
  ? S extends readonly number[]
    ? S[number]
    : S
  : never;

/** The codes registered for an HTTP status: what a factory for that status accepts. */
export type CodeFor<S extends number> = { [C in ErrorCode]: S extends StatusesOf<C> ? C : never }[ErrorCode];

/** Every status a code is answered with (most have one). */
export const statusesOf = (code: ErrorCode): readonly number[] => {
  const s: number | readonly number[] = ERROR_CODES[code].status;
  return typeof s === 'number' ? [s] : s;
};

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
