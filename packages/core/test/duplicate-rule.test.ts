import { DUPLICATE_MARGIN, DUPLICATE_SURE, DUPLICATE_THRESHOLD, pickDuplicate } from '@cfaq/core';
import { describe, expect, it } from 'vitest';

const faq = (id: string, title: string, vectorScore: number) => ({ id, title, vectorScore });

describe('pickDuplicate (the duplicate check over the nearest FAQs)', () => {
  it('names the nearest FAQ at or above 0.82 when it is clearly ahead of the next question', () => {
    const reset = faq('a', 'How do I reset my password?', 0.9);
    expect(pickDuplicate('i forgot my password', [faq('b', 'How do I change my password?', 0.86), reset])).toBe(reset);
    expect(pickDuplicate('i forgot my password', [faq('a', 'Q', DUPLICATE_THRESHOLD)])?.id).toBe('a');
  });

  it('does not match below the threshold', () => {
    expect(pickDuplicate('something else entirely', [faq('a', 'Q', DUPLICATE_THRESHOLD - 0.001)])).toBeNull();
    expect(pickDuplicate('something else entirely', [])).toBeNull();
  });

  it('does not match a near tie between two different questions', () => {
    const rows = [faq('a', 'Do you sell withdrawn books?', 0.85), faq('b', 'Can I donate books?', 0.85 - DUPLICATE_MARGIN / 2)];
    expect(pickDuplicate('what happens to old books', rows)).toBeNull();
    rows[1] = faq('b', 'Can I donate books?', 0.85 - DUPLICATE_MARGIN - 0.001);
    expect(pickDuplicate('what happens to old books', rows)?.id).toBe('a');
  });

  it('matches the nearest from DUPLICATE_SURE up, however close the next question scores', () => {
    const rows = [
      faq('a', 'How do I reset my password?', DUPLICATE_SURE),
      faq('b', 'How do I change my password?', DUPLICATE_SURE - 0.001),
    ];
    expect(pickDuplicate('reset or change my password', rows)?.id).toBe('a');
    rows[0] = faq('a', 'How do I reset my password?', DUPLICATE_SURE - 0.0005);
    expect(pickDuplicate('reset or change my password', rows)).toBeNull();
  });

  it('does not let FAQs asking the same question compete (one posted twice)', () => {
    const rows = [faq('a', 'How do I reset my password?', 0.86), faq('b', 'how do I reset my password', 0.859), faq('c', 'Other', 0.7)];
    expect(pickDuplicate('forgot my password, what now', rows)?.id).toBe('a');
  });

  it('matches a question asked word for word whatever its score, case, punctuation and spacing aside', () => {
    const rows = [faq('a', 'Where is the library?', 0.75), faq('b', 'How do I reset my password?', 0.7)];
    expect(pickDuplicate('how do i reset  my password', rows)?.id).toBe('b');
    expect(pickDuplicate('how do i reset my passwords', rows)).toBeNull();
    // nothing but punctuation is no question to repeat
    expect(pickDuplicate('??????????', [faq('a', '???', 0.5)])).toBeNull();
  });
});
