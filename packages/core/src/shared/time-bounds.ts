import { invalidField } from '../errors/index.js';
import { DAY_MS } from '../runtime/clock.js';

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A YYYY-MM-DD day as its UTC midnight, or null when it is not one (2026-02-30 would roll into March). */
export function calendarDay(value: string): Date | null {
  if (!DAY_ONLY.test(value)) return null;
  const start = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== value ? null : start;
}

const MESSAGE = 'must be a calendar date (YYYY-MM-DD) or an ISO 8601 date-time';

/**
 * A `from` or `to` filter of a time-stamped list, given as an ISO 8601 date-time or as a day: a day
 * `from` starts at 00:00 UTC, a day `to` takes that whole day in (both bounds are inclusive). A day
 * that does not exist (2026-02-30, which Date would roll into March) is a 400 naming the field.
 */
export function timeBound(field: string, value: string, edge: 'from' | 'to'): Date {
  const start = calendarDay(value.slice(0, 10));
  if (!start) throw invalidField(field, MESSAGE);
  if (DAY_ONLY.test(value)) return edge === 'from' ? start : new Date(start.getTime() + DAY_MS - 1);
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw invalidField(field, MESSAGE);
  return at;
}

/**
 * A date-time a client sends for a column (a suspension's `until`), as a Date, or a 400 naming the field.
 * The schema's `date-time` format admits what Date cannot hold (second 60, a leap second: an Invalid
 * Date the column's writer throws on, a 500) and checks the year on the text before its offset
 * (2999-12-31T23:00-14:00 is the year 3000): the instant itself must exist and fall in 1900 to 2999.
 */
export function dateTimeInput(field: string, value: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw invalidField(field, 'must be an ISO 8601 date-time that exists (second 60 is not accepted)');
  const year = at.getUTCFullYear();
  if (year < 1900 || year > 2999) throw invalidField(field, 'must fall in the years 1900 to 2999 (UTC)');
  return at;
}

/**
 * `from` after `to` answers 400 naming query.from: the dashboards' check (analytics/range.ts), and the
 * time-stamped lists'. `toText` is `to` as the answer names it.
 */
export function checkFromNotAfterTo(from: Date, to: Date, toText: string): void {
  if (from.getTime() > to.getTime()) throw invalidField('query.from', `must not be after to (${toText})`);
}

/** The `from` and `to` filters of a time-stamped list, each optional, in order (else 400 naming query.from). */
export function timeBounds(q: { from?: string | undefined; to?: string | undefined }): { from?: Date; to?: Date } {
  const from = q.from ? timeBound('query.from', q.from, 'from') : undefined;
  const to = q.to ? timeBound('query.to', q.to, 'to') : undefined;
  if (from && to && q.to) checkFromNotAfterTo(from, to, q.to);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}
