import { describe, expect, it } from 'vitest';
import { chunkTranscript, KNOWLEDGE_CHUNK_CHARS } from '../src/conf/knowledge-store.js';

describe('transcript knowledge chunks', () => {
  it('cut one long stretch of one speaker into pieces of about 1,500 characters, at sentence ends, each naming the speaker', () => {
    const sentence = 'The lab opens at nine and closes at five on weekdays. ';
    const text = sentence.repeat(300).trim(); // about 16,000 characters, one segment
    const chunks = chunkTranscript('Lecture', [{ speaker: 'Lecturer', start: 0, end: 1000, text }]);
    expect(chunks.length).toBeGreaterThanOrEqual(10);
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(KNOWLEDGE_CHUNK_CHARS);
      expect(c.content.startsWith('Lecturer: The lab')).toBe(true);
      expect(c.content.endsWith('weekdays.')).toBe(true);
    }
    // Times follow the text: increasing, from the segment's start to its end.
    expect(chunks[0]?.start).toBe(0);
    expect(chunks.at(-1)?.end).toBe(1000);
    for (let i = 1; i < chunks.length; i++) expect((chunks[i]?.start ?? 0) >= (chunks[i - 1]?.start ?? 0)).toBe(true);
    expect(chunks[1]?.title).toMatch(/^Lecture \(part 2 of \d+, /);
    // Nothing lost: the pieces hold the whole text.
    expect(chunks.map((c) => c.content.slice('Lecturer: '.length)).join(' ')).toBe(text);
  });

  it('a raw text without sentence ends is cut at spaces', () => {
    const text = Array.from({ length: 2500 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkTranscript('Raw', [{ speaker: null, start: 0, end: 0, text }]);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(KNOWLEDGE_CHUNK_CHARS);
    expect(chunks.map((c) => c.content).join(' ')).toBe(text);
  });
});
