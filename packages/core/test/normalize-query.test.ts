import { normalizeQuery } from '@cfaq/core';
import { describe, expect, it } from 'vitest';

describe('normalizeQuery (step 1: trim, lower-case, collapse whitespace)', () => {
  it('trims, lower-cases and turns every whitespace run into one space', () => {
    expect(normalizeQuery('  How  do I\treset\n\nmy PASSWORD \u00a0 ')).toBe('how do i reset my password');
    expect(normalizeQuery('a\r\nb\u3000c \t d')).toBe('a b c d');
    expect(normalizeQuery(' \t ')).toBe('');
  });

  it('drops zero-width and other invisible format characters', () => {
    expect(normalizeQuery('\u200bReset \u200b my\u2060 password\ufeff')).toBe('reset my password');
    expect(normalizeQuery('\u200b\u200c\u200d')).toBe('');
  });

  it('reads a control character between two words as a space (dropped, it joined them into one word)', () => {
    expect(normalizeQuery('yak\u0001shaving\u0085rules')).toBe('yak shaving rules');
    expect(normalizeQuery('\u0007reset\u0007')).toBe('reset');
  });

  it('returns a query that is already clean unchanged', () => {
    const clean = 'how do i reset my password';
    expect(normalizeQuery(clean)).toBe(clean);
  });
});
