import { Code, unprocessable } from '../errors/index.js';
import { hasVisibleText } from '../shared/text.js';

/**
 * A FAQ goes public (published, promoted, or put up for review) only with an answer: a suggestion may
 * come without one. An answer of only white space or zero-width characters is none (hasVisibleText: a
 * row stored before the API refused them, or written by a path without a schema, is not published).
 * 422 FAQ_NO_ANSWER, with what to do (`hint`).
 */
export function requireAnswer(answer: string, hint: string): void {
  if (!hasVisibleText(answer)) throw unprocessable(Code.FAQ_NO_ANSWER, `The FAQ has no answer yet; ${hint}`);
}
