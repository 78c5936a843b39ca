import { createSearchClientKeyer, searchClientKey } from '@cfaq/core';
import { describe, expect, it } from 'vitest';

describe('search client keyer', () => {
  it('gives what searchClientKey gives, for users, addresses and neither', () => {
    const keyer = createSearchClientKeyer('secret-a');
    const cases = [
      { userId: 'u1', ip: '10.0.0.1' },
      { ip: '10.0.0.1' },
      { ip: '10.0.0.2' },
      { ip: '10.0.0.1' },
      {},
      { ip: null, userId: null },
    ];
    for (const who of cases) expect(keyer(who)).toBe(searchClientKey('secret-a', who));
    expect(keyer({ ip: '10.0.0.1' })).toMatch(/^a:/);
    // A remembered address answers under its own secret only.
    expect(createSearchClientKeyer('secret-b')({ ip: '10.0.0.1' })).not.toBe(keyer({ ip: '10.0.0.1' }));
  });

  it('stays right past its bound', () => {
    const keyer = createSearchClientKeyer('s');
    for (let i = 0; i < 10_050; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      keyer({ ip });
    }
    for (const ip of ['10.0.0.0', '10.0.39.66', '10.0.0.7']) expect(keyer({ ip })).toBe(searchClientKey('s', { ip }));
  });
});
