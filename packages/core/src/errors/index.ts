/**
 * Domain errors. Core code throws these; the API maps them to RFC 9457 problem responses
 * (status, a stable UPPER_SNAKE `code`, and a `detail` safe to show a client).
 */
export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (code: string, detail: string, errors?: FieldError[]) => new AppError(400, code, detail, errors);
export const unauthorized = (detail = 'Authentication required', code = 'UNAUTHORIZED') => new AppError(401, code, detail);
export const forbidden = (detail = 'You are not allowed to do this', code = 'FORBIDDEN') => new AppError(403, code, detail);
export const notFound = (what: string, code = 'NOT_FOUND') => new AppError(404, code, `${what} not found`);
export const conflict = (code: string, detail: string) => new AppError(409, code, detail);
export const unprocessable = (code: string, detail: string) => new AppError(422, code, detail);
export const unavailable = (code: string, detail: string) => new AppError(503, code, detail);

/** A single-field validation failure, shaped like the schema validator's. */
export const invalidField = (path: string, message: string) => badRequest('VALIDATION_FAILED', `${path}: ${message}`, [{ path, message }]);
