import { describe, expect, it } from 'vitest';
import { parseTimingLine, parseVtt, segmentsOf, segmentsToText, truncateSafe, VttError, vttToTranscript } from '../src/conf/vtt.js';

// Cases modelled on the WebVTT parsing tests (web-platform-tests webvtt/parsing/file-parsing).
describe('WebVTT signature', () => {
  it.each([
    ['plain', 'WEBVTT\n\n00:00.000 --> 00:01.000\nhi'],
    ['space and header text', 'WEBVTT some header\n\n00:00.000 --> 00:01.000\nhi'],
    ['tab', 'WEBVTT\tx\n\n00:00.000 --> 00:01.000\nhi'],
    ['BOM', '\ufeffWEBVTT\n\n00:00.000 --> 00:01.000\nhi'],
    ['signature only', 'WEBVTT'],
  ])('accepts %s', (_name, input) => {
    expect(() => parseVtt(input)).not.toThrow();
  });

  it.each([
    ['missing', '00:00.000 --> 00:01.000\nhi'],
    ['lower case', 'webvtt\n\n00:00.000 --> 00:01.000\nhi'],
    ['glued text', 'WEBVTTX\n\n00:00.000 --> 00:01.000\nhi'],
    ['leading space', ' WEBVTT\n'],
    ['two BOMs', '\ufeff\ufeffWEBVTT\n'],
    ['empty', ''],
    ['html page', '<!doctype html><html>WEBVTT</html>'],
  ])('rejects %s', (_name, input) => {
    expect(() => parseVtt(input)).toThrow(VttError);
  });
});

describe('line endings and characters', () => {
  const body = [
    'WEBVTT',
    '',
    '1',
    '00:00:01.000 --> 00:00:02.000',
    'Ann: first line',
    'second line',
    '',
    '00:00:03.000 --> 00:00:04.000',
    'Bob: next',
  ];
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('parses the same cues with %s', (_name, eol) => {
    const cues = parseVtt(body.join(eol));
    expect(cues).toEqual([
      { id: '1', start: 1, end: 2, speaker: 'Ann', text: 'first line second line' },
      { id: '', start: 3, end: 4, speaker: 'Bob', text: 'next' },
    ]);
  });

  it('mixed line endings', () => {
    expect(parseVtt('WEBVTT\r\n\r00:00.000 --> 00:01.000\nA: x\r\n\n00:02.000 --> 00:03.000\rB: y')).toHaveLength(2);
  });

  it('replaces NUL with U+FFFD', () => {
    const [cue] = parseVtt('WEBVTT\n\n00:00.000 --> 00:01.000\na\0b');
    expect(cue?.text).toBe('a\ufffdb');
  });
});

describe('timings', () => {
  it('hours are optional; minutes and seconds stay below 60', () => {
    expect(parseTimingLine('00:01.500 --> 00:02.250')).toEqual({ start: 1.5, end: 2.25 });
    expect(parseTimingLine('01:00:00.000 --> 100:00:00.001')).toEqual({ start: 3600, end: 360000.001 });
    // Past 2^31 - 1 ms (cue times are stored as integer milliseconds): not a timing line, the cue is dropped.
    expect(parseTimingLine('596:31:23.647 --> 596:31:23.647')).toEqual({ start: 2147483.647, end: 2147483.647 });
    expect(parseTimingLine('00:00:01.000 --> 596:31:23.648')).toBeNull();
    expect(parseTimingLine('999:00:01.000 --> 999:00:02.000')).toBeNull();
    expect(parseTimingLine('99999999999999999999:00:01.000 --> 99999999999999999999:00:02.000')).toBeNull();
    expect(parseTimingLine('00:00:01.000-->00:00:02.000')).toEqual({ start: 1, end: 2 });
    expect(parseTimingLine('00:00.000 --> 00:01.000 align:start position:10%')).toEqual({ start: 0, end: 1 });
  });

  it.each([
    ['seconds over 59', '00:00:60.000 --> 00:01:00.000'],
    ['minutes over 59 without hours', '60:00.000 --> 61:00.000'],
    ['two-digit ms', '00:00.00 --> 00:01.000'],
    ['comma separator', '00:00:01,000 --> 00:00:02,000'],
    ['negative start', '-00:00:01.000 --> 00:00:02.000'],
    ['one-digit minutes', '0:01.000 --> 00:02.000'],
    ['missing arrow', '00:00.000 00:01.000'],
    ['garbage after end', '00:00.000 --> 00:01.000x'],
    ['letters', 'aa:bb.ccc --> 00:01.000'],
  ])('rejects %s', (_name, line) => {
    expect(parseTimingLine(line)).toBeNull();
  });

  it('drops cues with malformed timings and keeps the rest', () => {
    const cues = parseVtt(
      [
        'WEBVTT',
        '',
        '00:00:60.000 --> 00:01:00.000',
        'bad',
        '',
        '00:01.000 --> 00:02.000',
        'good',
        '',
        '-00:00:01.000 --> 00:00:02.000',
        'negative',
      ].join('\n'),
    );
    expect(cues.map((c) => c.text)).toEqual(['good']);
  });

  it('drops a cue whose end precedes its start (negative duration)', () => {
    const cues = parseVtt('WEBVTT\n\n00:05.000 --> 00:01.000\nbackwards\n\n00:06.000 --> 00:07.000\nforwards');
    expect(cues.map((c) => c.text)).toEqual(['forwards']);
  });
});

describe('blocks and identifiers', () => {
  it('an identifier containing --> is not an identifier: the line is dropped and the cue read without one', () => {
    const cues = parseVtt('WEBVTT\n\nfoo-->bar\n00:00.000 --> 00:01.000\ntext');
    expect(cues).toEqual([{ id: '', start: 0, end: 1, speaker: null, text: 'text' }]);
  });

  it('a timing line inside a payload starts a new cue', () => {
    const cues = parseVtt('WEBVTT\n\n00:00.000 --> 00:01.000\none\n00:01.000 --> 00:02.000\ntwo');
    expect(cues.map((c) => c.text)).toEqual(['one', 'two']);
  });

  it('NOTE, STYLE and REGION blocks are not cues', () => {
    const cues = parseVtt('WEBVTT\n\nNOTE a comment\nmore\n\nSTYLE\n::cue { color: red }\n\n00:00.000 --> 00:01.000\nreal');
    expect(cues.map((c) => c.text)).toEqual(['real']);
  });

  it('a header line is not a cue id; a cue right after the signature line is a cue', () => {
    expect(parseVtt('WEBVTT\nKind: captions\n\n00:00.000 --> 00:01.000\nx')).toHaveLength(1);
    expect(parseVtt('WEBVTT\n00:00.000 --> 00:01.000\nx')).toHaveLength(1);
  });

  it('multiple blank lines between cues and a cue without payload', () => {
    const cues = parseVtt('WEBVTT\n\n\n\n00:00.000 --> 00:01.000\n\n\n00:01.000 --> 00:02.000\ny\n\n');
    expect(cues.map((c) => c.text)).toEqual(['', 'y']);
  });
});

describe('speakers and text', () => {
  it('voice spans and the provider "Name: text" convention', () => {
    const cues = parseVtt(
      'WEBVTT\n\n00:00.000 --> 00:01.000\n<v.loud Mary Jane>Hello &amp; welcome</v>\n\n00:01.000 --> 00:02.000\nJohn Smith: <i>How</i> are &lt;you&gt;?',
    );
    expect(cues.map((c) => [c.speaker, c.text])).toEqual([
      ['Mary Jane', 'Hello & welcome'],
      ['John Smith', 'How are <you>?'],
    ]);
  });

  it('several voices in one cue: each speaks its own words', () => {
    const cues = parseVtt(
      'WEBVTT\n\n00:00.000 --> 00:04.000\n<v Alice>Hello there everyone.</v>\n<v Bob>Hi Alice, thanks.</v>\n\n00:04.000 --> 00:05.000\nSo <v Carol>we start.</v>',
    );
    expect(cues.map((c) => [c.speaker, c.text, c.start])).toEqual([
      ['Alice', 'Hello there everyone.', 0],
      ['Bob', 'Hi Alice, thanks.', 0],
      ['Carol', 'So we start.', 4],
    ]);
  });

  it('merges consecutive cues of one speaker into segments and writes "Speaker: text" lines', () => {
    const { segments, text } = vttToTranscript(
      'WEBVTT\n\n00:00.000 --> 00:01.000\nAnn: one\n\n00:01.000 --> 00:02.000\nAnn: two\n\n00:02.000 --> 00:03.000\nBob: three',
    );
    expect(segments).toEqual([
      { speaker: 'Ann', start: 0, end: 2, text: 'one two' },
      { speaker: 'Bob', start: 2, end: 3, text: 'three' },
    ]);
    expect(text).toBe('Ann: one two\nBob: three');
  });

  it('caps the text without splitting a surrogate pair', () => {
    const emoji = '\u{1F600}';
    expect(truncateSafe(`ab${emoji}`, 3)).toBe('ab');
    expect(truncateSafe(`ab${emoji}`, 4)).toBe(`ab${emoji}`);
    const long = segmentsOf(
      Array.from({ length: 5000 }, (_, i) => ({
        id: '',
        start: i * 40,
        end: i * 40 + 1,
        speaker: `S${i % 2}`,
        text: `${emoji} word`.repeat(3),
      })),
    );
    const text = segmentsToText(long, 50_000);
    expect(text.length).toBeLessThanOrEqual(50_000);
    const last = text.charCodeAt(text.length - 1);
    expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
  });
});
