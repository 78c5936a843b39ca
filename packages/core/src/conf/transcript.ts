import { Code } from '../errors/index.js';
import { MAX_TRANSCRIPT_CHARS, rawToTranscript, type TranscriptSegment, VttError, vttToTranscript } from './vtt.js';

/** The spec's floor: shorter transcripts are rejected as empty. */
export const MIN_TRANSCRIPT_CHARS = 30;

export interface ParsedTranscript {
  segments: TranscriptSegment[];
  /** Plain text with speakers, at most 50,000 characters. */
  text: string;
}

/** A transcript that cannot be used; `code` is the stable identifier shown to admins and clients. */
export class TranscriptError extends Error {
  constructor(
    readonly code: typeof Code.TRANSCRIPT_TOO_SHORT | typeof Code.INVALID_VTT,
    message: string,
  ) {
    super(message);
    this.name = 'TranscriptError';
  }
}

/** Parses a VTT (`vtt`) or pasted plain-text (`raw`) transcript; rejects one under 30 characters. */
export function parseTranscript(kind: 'vtt' | 'raw', input: string): ParsedTranscript {
  if (input.trim().length < MIN_TRANSCRIPT_CHARS) {
    throw new TranscriptError(Code.TRANSCRIPT_TOO_SHORT, `transcript shorter than ${MIN_TRANSCRIPT_CHARS} characters`);
  }
  let parsed: ParsedTranscript;
  try {
    parsed = kind === 'vtt' ? vttToTranscript(input, MAX_TRANSCRIPT_CHARS) : rawToTranscript(input, MAX_TRANSCRIPT_CHARS);
  } catch (err) {
    if (err instanceof VttError) throw new TranscriptError(Code.INVALID_VTT, err.message);
    throw err;
  }
  if (parsed.text.trim().length < MIN_TRANSCRIPT_CHARS) {
    throw new TranscriptError(Code.TRANSCRIPT_TOO_SHORT, `transcript text shorter than ${MIN_TRANSCRIPT_CHARS} characters`);
  }
  return parsed;
}
