import pino, { type Logger } from 'pino';
import { redactString, redactValue, serializeError, serializeRequest } from './redact.js';

export type { Logger };

/** Paths never written to logs: credentials, tokens, keys, provider secrets. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-zm-signature"]',
  'headers.authorization',
  'authorization',
  'password',
  'currentPassword',
  'newPassword',
  'passwordHash',
  'token',
  'accessToken',
  'refreshToken',
  'challengeToken',
  'apiKey',
  'secret',
  'code',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.apiKey',
  '*.secret',
  '*.totpSecret',
  '*.confAccessToken',
  '*.confRefreshToken',
];

export interface LoggerOptions {
  level: string;
  name?: string;
}

export function createLoggerOptions(opts: LoggerOptions): pino.LoggerOptions {
  return {
    level: opts.level,
    ...(opts.name ? { name: opts.name } : {}),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Errors without their statement parameters; secret shapes (argon2 hashes, JWTs, bearer
    // credentials, API keys) redacted by value in every field and message, whatever its name.
    // The request line without the secrets a query string can carry (OAuth codes and states, tokens).
    serializers: { err: serializeError, error: serializeError, req: serializeRequest },
    formatters: { level: (label) => ({ level: label }), log: (obj) => redactValue(obj) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = redactString(args[i] as string);
        method.apply(this, args as Parameters<typeof method>);
      },
    },
  };
}

export function createLogger(opts: LoggerOptions): Logger {
  return pino(createLoggerOptions(opts));
}
