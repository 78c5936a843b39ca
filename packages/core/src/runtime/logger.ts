import pino, { type Logger } from 'pino';

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
    formatters: { level: (label) => ({ level: label }) },
  };
}

export function createLogger(opts: LoggerOptions): Logger {
  return pino(createLoggerOptions(opts));
}
