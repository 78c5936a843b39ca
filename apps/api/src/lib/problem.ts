import { ERROR_CODES, type ErrorCode, statusesOf } from '@cfaq/core';
import { type Static, Type as T } from '@sinclair/typebox';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
const CODE_TABLE = CODES.map((c) => `${c} (${statusesOf(c).join(', ')}): ${ERROR_CODES[c].title}`).join('\n- ');

/** RFC 9457 problem details, the body of every error response. */
export const Problem = T.Object(
  {
    type: T.String(),
    title: T.String(),
    status: T.Integer(),
    detail: T.String(),
    code: T.Unsafe<ErrorCode>({
      type: 'string',
      enum: CODES,
      description: `stable UPPER_SNAKE identifier, one of (status: meaning):\n- ${CODE_TABLE}`,
    }),
    instance: T.Optional(T.String()),
    errors: T.Optional(T.Array(T.Object({ path: T.String(), message: T.String() }))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);
export type ProblemBody = Static<typeof Problem>;

export const PROBLEM_TYPE_BASE = 'https://community-faq.dev/problems/';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export function problem(status: number, code: ErrorCode, detail: string, errors?: ProblemBody['errors']): ProblemBody {
  return {
    type: `${PROBLEM_TYPE_BASE}${code.toLowerCase().replace(/_/g, '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

/** Response schema entries for the error statuses a route can answer, by reference. */
export const problemResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, T.Ref(Problem)])) as Record<number, ReturnType<typeof T.Ref>>;
