import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderErrorTable, withErrorTable } from '../../../scripts/errors-table.js';
import { ERROR_CODES } from '../src/errors/codes.js';

describe('README error-code table', () => {
  it('is the registry’s (run `npm run errors:table` after changing packages/core/src/errors/codes.ts)', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('<!-- errors:start -->');
    expect(readme).toBe(withErrorTable(readme));
  });

  it('lists every registered code once', () => {
    const rows = renderErrorTable().split('\n').slice(2);
    expect(rows).toHaveLength(Object.keys(ERROR_CODES).length);
    for (const code of Object.keys(ERROR_CODES)) expect(rows.filter((r) => r.startsWith(`| \`${code}\` |`))).toHaveLength(1);
  });
});
