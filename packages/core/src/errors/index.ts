/**
 * Domain errors. Core code throws these; the API maps them to RFC 9457 problem responses
 * (status, a stable UPPER_SNAKE `code`, and a `detail` safe to show a client). Codes come from the
 * registry in `codes.ts`; each factory accepts only the codes registered for its status.
 */
import { Code, type CodeFor, type ErrorCode } from './codes.js';

export * from './codes.js';

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** An error of any status, with a code registered for it (the named factories below cover the usual ones). */
export const appError = <S extends number>(status: S, code: CodeFor<S>, detail: string, errors?: FieldError[]) =>
  new AppError(status, code, detail, errors);

export const badRequest = (code: CodeFor<400>, detail: string, errors?: FieldError[]) => new AppError(400, code, detail, errors);
export const unauthorized = (detail = 'Authentication required', code: CodeFor<401> = Code.UNAUTHORIZED) => new AppError(401, code, detail);
export const forbidden = (detail = 'You are not allowed to do this', code: CodeFor<403> = Code.FORBIDDEN) =>
  new AppError(403, code, detail);
export const notFound = (what: string, code: CodeFor<404> = Code.NOT_FOUND) => new AppError(404, code, `${what} not found`);
export const conflict = (code: CodeFor<409>, detail: string) => new AppError(409, code, detail);
export const unprocessable = (code: CodeFor<422>, detail: string) => new AppError(422, code, detail);
export const badGateway = (code: CodeFor<502>, detail: string) => new AppError(502, code, detail);
export const unavailable = (code: CodeFor<503>, detail: string) => new AppError(503, code, detail);

/** A single-field validation failure, shaped like the schema validator's. */
export const invalidField = (path: string, message: string) =>
  badRequest(Code.VALIDATION_FAILED, `${path}: ${message}`, [{ path, message }]);
