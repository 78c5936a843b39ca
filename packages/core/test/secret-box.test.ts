import { describe, expect, it } from 'vitest';
import { SecretBox } from '../src/crypto/secret-box.js';
import { safeEqual } from '../src/crypto/tokens.js';

const box = new SecretBox('11'.repeat(32));

describe('SecretBox (AES-256-GCM)', () => {
  it('round-trips a value bound to its row id', () => {
    const enc = box.encrypt('provider-refresh-token', 'row-1');
    expect(enc).not.toContain('provider-refresh-token');
    expect(box.decrypt(enc, 'row-1')).toBe('provider-refresh-token');
  });

  it('uses a fresh IV for every value', () => {
    expect(box.encrypt('same', 'r')).not.toBe(box.encrypt('same', 'r'));
  });

  it('refuses a value moved to another row', () => {
    const enc = box.encrypt('secret', 'row-1');
    expect(() => box.decrypt(enc, 'row-2')).toThrow();
  });

  it('refuses a tampered ciphertext or tag', () => {
    const [v, iv, tag, body] = box.encrypt('secret', 'r').split('.') as [string, string, string, string];
    const flip = (s: string) => (s[0] === 'A' ? `B${s.slice(1)}` : `A${s.slice(1)}`);
    expect(() => box.decrypt([v, iv, tag, flip(body)].join('.'), 'r')).toThrow();
    expect(() => box.decrypt([v, iv, flip(tag), body].join('.'), 'r')).toThrow();
    expect(() => box.decrypt('garbage', 'r')).toThrow();
  });

  it('refuses a value encrypted under another key', () => {
    const other = new SecretBox('22'.repeat(32));
    expect(() => other.decrypt(box.encrypt('secret', 'r'), 'r')).toThrow();
  });

  it('rejects keys that are not 32 bytes', () => {
    expect(() => new SecretBox('11'.repeat(16))).toThrow(/32 bytes/);
  });
});

describe('safeEqual', () => {
  it('compares in constant time and handles unequal lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
