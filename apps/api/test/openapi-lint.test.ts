import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

/**
 * The served document as a client generator sees it: Redocly's recommended rules (the set
 * `redocly lint` applies by default). Any error fails; warnings are printed, not counted.
 */
describe('OpenAPI document, linted', () => {
  it('has no error under Redocly’s recommended rules', async () => {
    const source = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).body;
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const describe = (p: (typeof problems)[number]) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`;
    const warnings = problems.filter((p) => p.severity === 'warn');
    if (warnings.length > 0) console.log(`redocly warnings (${warnings.length}):\n${warnings.map(describe).join('\n')}`);
    expect(problems.filter((p) => p.severity === 'error').map(describe)).toEqual([]);
  });
});
