import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Code, ERROR_CODES, type ErrorCode, isErrorCode, statusesOf } from '../src/errors/codes.js';
import { appError, conflict, notFound } from '../src/errors/index.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('error-code registry', () => {
  it('gives every code an error status and a title, and names each code by itself', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      for (const status of statusesOf(code)) expect(status >= 400 && status <= 599, `${code} ${status}`).toBe(true);
      expect(ERROR_CODES[code].title.length).toBeGreaterThan(3);
      expect(Code[code]).toBe(code);
    }
    expect(isErrorCode('USER_NOT_FOUND')).toBe(true);
    expect(isErrorCode('NO_SUCH_CODE')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('makes errors whose status is the one registered for their code', () => {
    expect(notFound('User', Code.USER_NOT_FOUND)).toMatchObject({ status: 404, code: 'USER_NOT_FOUND', message: 'User not found' });
    expect(conflict(Code.EMAIL_TAKEN, 'taken')).toMatchObject({ status: 409, code: 'EMAIL_TAKEN' });
    expect(appError(415, Code.UNSUPPORTED_MEDIA_TYPE, 'no')).toMatchObject({ status: 415 });
    // @ts-expect-error a code registered for another status is refused at compile time
    notFound('User', Code.EMAIL_TAKEN);
    // @ts-expect-error an unregistered code is refused at compile time
    conflict('NOT_A_CODE', 'x');
  });

  it('is referred to by name where errors are thrown, never by a string literal', () => {
    const factory = /\b(badRequest|unauthorized|forbidden|notFound|conflict|unprocessable|badGateway|unavailable|appError|problem)\(/;
    const literal = new RegExp(`'(${Object.keys(ERROR_CODES).join('|')})'`);
    const offenders: string[] = [];
    for (const file of [...sources('packages/core/src'), ...sources('apps/api/src'), ...sources('apps/worker/src')]) {
      if (file.endsWith('errors/codes.ts')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (factory.test(line) && literal.test(line)) offenders.push(`${file.slice(ROOT.length)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
