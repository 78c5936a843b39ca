/**
 * WebVTT parsing after the W3C WebVTT parser algorithm (https://w3c.github.io/webvtt/#file-parsing):
 * NUL becomes U+FFFD, CRLF and CR become LF, a leading BOM is skipped, the file must start with the
 * `WEBVTT` signature followed by space, tab, a line end or nothing; blocks are read one at a time (a
 * line holding `-->` on the block's first or second line is the timing line, so an identifier cannot
 * contain `-->`: such a line is dropped and the cue after it is read without an identifier); timestamps
 * are `[hh:]mm:ss.ttt` with hours optional and minutes/seconds below 60. A cue whose timing line does not
 * parse is dropped. Beyond the algorithm, a cue whose end precedes its start (a negative duration) is
 * dropped as well: a transcript has no use for it.
 *
 * Speakers: a voice span (`<v Name>...`) or the provider's `Name: text` payload convention.
 */

export interface VttCue {
  id: string;
  /** Seconds. */
  start: number;
  end: number;
  speaker: string | null;
  /** Payload with tags removed, entities decoded, the speaker prefix taken off. */
  text: string;
}

export class VttError extends Error {
  constructor(
    readonly code: 'VTT_SIGNATURE' | 'VTT_EMPTY',
    message: string,
  ) {
    super(message);
    this.name = 'VttError';
  }
}

const ARROW = '-->';
const MAX_CUE_SECONDS = (2 ** 31 - 1) / 1000;

/** Parses a timestamp at `s[pos]`; returns seconds and the new position, or null. */
function parseTimestamp(s: string, pos: number): { value: number; pos: number } | null {
  let p = pos;
  const digits = () => {
    const start = p;
    while (p < s.length && s.charCodeAt(p) >= 48 && s.charCodeAt(p) <= 57) p++;
    return s.slice(start, p);
  };
  let hoursUnits = false;
  const d1 = digits();
  if (d1.length === 0) return null;
  let v1 = Number(d1);
  if (d1.length !== 2 || v1 > 59) hoursUnits = true;
  if (s[p] !== ':') return null;
  p++;
  const d2 = digits();
  if (d2.length !== 2) return null;
  let v2 = Number(d2);
  let v3: number;
  if (hoursUnits || s[p] === ':') {
    if (s[p] !== ':') return null;
    p++;
    const d3 = digits();
    if (d3.length !== 2) return null;
    v3 = Number(d3);
  } else {
    v3 = v2;
    v2 = v1;
    v1 = 0;
  }
  if (s[p] !== '.') return null;
  p++;
  const d4 = digits();
  if (d4.length !== 3) return null;
  if (v2 > 59 || v3 > 59) return null;
  const value = v1 * 3600 + v2 * 60 + v3 + Number(d4) / 1000;
  // WebVTT bounds no hour count, but cue times are stored as integer milliseconds (insights' cue_start_ms):
  // a time past 2^31 - 1 ms (about 596 hours) is no meeting's, and its cue is dropped as malformed.
  if (value > MAX_CUE_SECONDS) return null;
  return { value, pos: p };
}

const isWs = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';

/** "collect WebVTT cue timings and settings": start and end, or null when the line does not parse. */
export function parseTimingLine(line: string): { start: number; end: number } | null {
  let p = 0;
  while (isWs(line[p])) p++;
  const a = parseTimestamp(line, p);
  if (!a) return null;
  p = a.pos;
  while (isWs(line[p])) p++;
  if (line.slice(p, p + 3) !== ARROW) return null;
  p += 3;
  while (isWs(line[p])) p++;
  const b = parseTimestamp(line, p);
  if (!b) return null;
  // Settings may follow after whitespace; anything glued to the timestamp makes it malformed.
  if (b.pos < line.length && !isWs(line[b.pos])) return null;
  return { start: a.value, end: b.value };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', nbsp: '\u00a0', lrm: '\u200e', rlm: '\u200f', quot: '"', apos: "'" };

function cuePayload(raw: string, markup = true): { speaker: string | null; text: string } {
  const voice = markup ? /<v(?:\.[^\s>]*)?[ \t]+([^>]+)>/.exec(raw) : null;
  let speaker = voice?.[1]?.trim() || null;
  let text = markup
    ? raw.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|nbsp|lrm|rlm|quot|apos);/g, (_m, e: string) => ENTITIES[e] ?? '')
    : raw;
  text = text.replace(/\s+/g, ' ').trim();
  if (!speaker) {
    const named = /^([^:\n]{1,80}?):\s+(.*)$/s.exec(text);
    if (named?.[1] && !/\d{2}:\d{2}/.test(named[1])) {
      speaker = named[1].trim();
      text = (named[2] ?? '').trim();
    }
  }
  return { speaker, text };
}

/** A cue's text cut before each voice span after the first (text before any span stays with the first part). */
function voiceParts(raw: string): string[] {
  const parts = raw.split(/(?=<v(?:\.[^\s>]*)?[ \t]+[^>]+>)/);
  if (parts.length <= 1) return [raw];
  // Text ahead of the first voice span (rare) joins that span's part rather than standing unvoiced.
  const [head, ...rest] = parts as [string, ...string[]];
  if (!/<v(?:\.[^\s>]*)?[ \t]+[^>]+>/.test(head) && rest.length > 0) rest[0] = `${head}${rest[0]}`;
  else rest.unshift(head);
  return rest;
}

/** Parses a WebVTT document; throws VttError when the signature is missing or malformed. */
export function parseVtt(input: string): VttCue[] {
  let s = input.replace(/\0/g, '\ufffd').replace(/\r\n?/g, '\n');
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  if (!s.startsWith('WEBVTT') || !(s.length === 6 || s[6] === ' ' || s[6] === '\t' || s[6] === '\n')) {
    throw new VttError('VTT_SIGNATURE', 'not a WebVTT file: it must begin with the line "WEBVTT"');
  }
  const lines = s.split('\n');
  let i = 1;
  // Header block (ends at a blank line, or at a line holding "-->", which begins the first cue).
  while (i < lines.length && lines[i] !== '' && !(lines[i] as string).includes(ARROW)) i++;
  const cues: VttCue[] = [];
  while (i < lines.length) {
    while (i < lines.length && lines[i] === '') i++;
    if (i >= lines.length) break;
    // Collect one block.
    let lineCount = 0;
    let seenArrow = false;
    let timing: { start: number; end: number } | null = null;
    let id = '';
    let buffer: string[] = [];
    for (; i < lines.length; ) {
      const line = lines[i] as string;
      lineCount++;
      if (line.includes(ARROW)) {
        if (lineCount === 1 || (lineCount === 2 && !seenArrow)) {
          seenArrow = true;
          i++;
          timing = parseTimingLine(line);
          if (timing) {
            id = buffer.join('\n');
            buffer = [];
          }
          continue;
        }
        break; // a new block starts at this line
      }
      if (line === '') break;
      buffer.push(line);
      i++;
    }
    if (timing && timing.end >= timing.start) {
      // One cue may hold several voices (<v Alice>...</v> <v Bob>...</v>): each is its own cue, so Bob's
      // words are not credited to Alice.
      for (const part of voiceParts(buffer.join('\n'))) {
        const { speaker, text } = cuePayload(part);
        cues.push({ id, start: timing.start, end: timing.end, speaker, text });
      }
    }
  }
  return cues;
}

/** Cuts a string to at most `max` UTF-16 units without leaving half of a surrogate pair. */
export function truncateSafe(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max;
  const c = text.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return text.slice(0, cut);
}

/** A stretch of one speaker's consecutive cues, the unit of provenance for insights and knowledge. */
export interface TranscriptSegment {
  speaker: string | null;
  start: number;
  end: number;
  text: string;
}

export const MAX_TRANSCRIPT_CHARS = 50_000;

/** Merges consecutive cues of one speaker; drops empty ones. */
export function segmentsOf(cues: readonly VttCue[]): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  for (const cue of cues) {
    if (!cue.text) continue;
    const last = out[out.length - 1];
    if (last && last.speaker === cue.speaker && cue.start - last.end < 30) {
      last.text = `${last.text} ${cue.text}`;
      last.end = Math.max(last.end, cue.end);
    } else out.push({ speaker: cue.speaker, start: cue.start, end: cue.end, text: cue.text });
  }
  return out;
}

/** "Speaker: text" lines, at most `max` characters (never splitting a surrogate pair). */
export function segmentsToText(segments: readonly TranscriptSegment[], max = MAX_TRANSCRIPT_CHARS): string {
  const parts: string[] = [];
  let length = 0;
  for (const seg of segments) {
    const line = seg.speaker ? `${seg.speaker}: ${seg.text}` : seg.text;
    parts.push(line);
    length += line.length + 1;
    if (length > max) break;
  }
  return truncateSafe(parts.join('\n'), max);
}

/** Parses a VTT transcript into segments and plain text of at most `max` characters. */
export function vttToTranscript(input: string, max = MAX_TRANSCRIPT_CHARS): { segments: TranscriptSegment[]; text: string } {
  const segments = segmentsOf(parseVtt(input));
  return { segments, text: segmentsToText(segments, max) };
}

/** Plain text pasted by an admin: one segment per non-empty line, speaker from a `Name:` prefix. */
export function rawToTranscript(input: string, max = MAX_TRANSCRIPT_CHARS): { segments: TranscriptSegment[]; text: string } {
  const segments: TranscriptSegment[] = [];
  for (const line of input.replace(/\0/g, '\ufffd').replace(/\r\n?/g, '\n').split('\n')) {
    const { speaker, text } = cuePayload(line, false);
    if (text) segments.push({ speaker, start: 0, end: 0, text });
  }
  return { segments, text: truncateSafe(segments.map((s) => (s.speaker ? `${s.speaker}: ${s.text}` : s.text)).join('\n'), max) };
}
