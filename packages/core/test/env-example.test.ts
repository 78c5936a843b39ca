import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderEnvExample, withConfigTable } from '../../../scripts/env-example.js';

describe('.env.example', () => {
  it('lists every setting of the config schema (run `npm run env:example` after changing it)', () => {
    const committed = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8');
    expect(committed).toBe(renderEnvExample());
  });

  it('and the README configuration table lists them too', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withConfigTable(readme));
  });
});
