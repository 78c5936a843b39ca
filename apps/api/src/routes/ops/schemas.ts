import { Type as T } from '@sinclair/typebox';
import { Problem } from '../../lib/problem.js';

export const HealthResponse = T.Object({
  status: T.Union([T.Literal('ok'), T.Literal('degraded')]),
  database: T.Union([T.Literal('ok'), T.Literal('down')]),
  uptimeSeconds: T.Number(),
  version: T.String(),
});

/**
 * A probe arriving while the server stops gets the shutdown guard's problem (503 SHUTTING_DOWN): it is
 * declared beside the health body, or it failed to serialise against that body and answered 500.
 */
export const HealthResponses = { 200: HealthResponse, 503: T.Union([HealthResponse, Problem]) };

export const WarmResponse = T.Object({ model: T.String(), ms: T.Number() });

const LogEntry = T.Object(
  {
    level: T.Union([T.Literal('debug'), T.Literal('info'), T.Literal('warn'), T.Literal('error')]),
    message: T.String({ minLength: 1, maxLength: 2000 }),
    context: T.Optional(T.Record(T.String(), T.Unknown())),
    url: T.Optional(T.String({ maxLength: 2048 })),
    userAgent: T.Optional(T.String({ maxLength: 512 })),
    timestamp: T.Optional(T.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

/** One entry, or a batch of up to 50. */
export const LogBody = T.Union([
  LogEntry,
  T.Object({ entries: T.Array(LogEntry, { minItems: 1, maxItems: 50 }) }, { additionalProperties: false }),
]);
export const LogResponse = T.Object({ accepted: T.Integer() });
