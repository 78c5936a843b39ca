import { invalidField } from '../errors/index.js';
import { DAY_MS } from '../runtime/clock.js';

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const MESSAGE = 'must be a calendar date (YYYY-MM-DD) or an ISO 8601 date-time';

/**
 * A `from` or `to` filter of a time-stamped list, given as an ISO 8601 date-time or as a day: a day
 * `from` starts at 00:00 UTC, a day `to` takes that whole day in (both bounds are inclusive). A day
 * that does not exist (2026-02-30, which Date would roll into March) is a 400 naming the field.
 */
export function timeBound(field: string, value: string, edge: 'from' | 'to'): Date {
  const day = value.slice(0, 10);
  const start = new Date(`${day}T00:00:00.000Z`);
  if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== day) throw invalidField(field, MESSAGE);
  if (DAY_ONLY.test(value)) return edge === 'from' ? start : new Date(start.getTime() + DAY_MS - 1);
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw invalidField(field, MESSAGE);
  return at;
}
