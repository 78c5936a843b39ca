import { Code, unprocessable } from '../errors/index.js';

/**
 * A FAQ goes public (published, promoted, or put up for review) only with an answer: a suggestion may
 * come without one. 422 FAQ_NO_ANSWER, with what to do (`hint`).
 */
export function requireAnswer(answer: string, hint: string): void {
  if (!answer.trim()) throw unprocessable(Code.FAQ_NO_ANSWER, `The FAQ has no answer yet; ${hint}`);
}
