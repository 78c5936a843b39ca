import { readFileSync, writeFileSync } from 'node:fs';
import { ERROR_CODES, type ErrorCode, statusesOf } from '@cfaq/core';

/**
 * The README's table of error codes, written from the registry (packages/core/src/errors/codes.ts)
 * between its `errors:start` and `errors:end` markers. `npm run errors:table` rewrites it; a test
 * fails when it is out of step.
 */
export function renderErrorTable(): string {
  const rows = ['| code | status | meaning |', '|---|---|---|'];
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    rows.push(`| \`${code}\` | ${statusesOf(code).join(', ')} | ${ERROR_CODES[code].title.replace(/\|/g, '\\|')} |`);
  }
  return rows.join('\n');
}

export function withErrorTable(readme: string): string {
  return readme.replace(
    /<!-- errors:start -->[\s\S]*<!-- errors:end -->/,
    `<!-- errors:start -->\n${renderErrorTable()}\n<!-- errors:end -->`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const readmeUrl = new URL('../README.md', import.meta.url);
  writeFileSync(readmeUrl, withErrorTable(readFileSync(readmeUrl, 'utf8')));
  console.log('README error-code table written');
}
