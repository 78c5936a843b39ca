import { confMeetings, transcriptKnowledge } from '@cfaq/db/schema/index';
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { embeddingText } from '../embeddings/embed-row.js';
import { type FaqProposal, proposalColumns } from '../knowledge/faq-match.js';
import type { Tx } from '../shared/db.js';
import { type TranscriptSegment, truncateSafe } from './vtt.js';

/** Target size of one knowledge row: a few minutes of conversation, small enough to be a search hit. */
export const KNOWLEDGE_CHUNK_CHARS = 1500;

export interface KnowledgeChunk {
  title: string;
  content: string;
  start: number;
  end: number;
}

export const clockTime = (seconds: number) => {
  const s = Math.max(0, Math.floor(seconds));
  const hh = String(Math.floor(s / 3600)).padStart(2, '0');
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `${hh}:${mm}:${ss}`;
};

/**
 * A segment longer than a chunk (one speaker's uninterrupted stretch, a raw text without line breaks)
 * in pieces of at most KNOWLEDGE_CHUNK_CHARS with its speaker's prefix, cut at a sentence end where one
 * falls in the second half of the piece, else at a space; each piece's times are interpolated by its
 * place in the text. Without this a 17-minute monologue was one 16,000-character row, most of which the
 * encoder (128 tokens) never reads.
 */
export function splitLongSegment(seg: TranscriptSegment): TranscriptSegment[] {
  const room = KNOWLEDGE_CHUNK_CHARS - (seg.speaker ? seg.speaker.length + 2 : 0);
  if (seg.text.length <= room || room < 200) return [seg];
  const pieces: TranscriptSegment[] = [];
  const at = (offset: number) => seg.start + ((seg.end - seg.start) * offset) / seg.text.length;
  let from = 0;
  while (from < seg.text.length) {
    let to = Math.min(seg.text.length, from + room);
    if (to < seg.text.length) {
      const window = seg.text.slice(from, to);
      const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '));
      const space = window.lastIndexOf(' ');
      const cut = sentence >= room / 2 ? sentence + 1 : space > 0 ? space : window.length;
      // Never between the halves of a surrogate pair.
      to = from + truncateSafe(window, cut).length;
      if (to <= from) to = Math.min(seg.text.length, from + room);
    }
    const text = seg.text.slice(from, to).trim();
    if (text) pieces.push({ speaker: seg.speaker, start: at(from), end: at(to), text });
    from = to;
  }
  return pieces;
}

/**
 * Splits a transcript into knowledge rows of about KNOWLEDGE_CHUNK_CHARS on segment boundaries (a longer
 * segment cut first, splitLongSegment); the text is capped at `maxChars` overall.
 */
export function chunkTranscript(topic: string, segments: readonly TranscriptSegment[], maxChars = 50_000): KnowledgeChunk[] {
  const chunks: KnowledgeChunk[] = [];
  let lines: string[] = [];
  let size = 0;
  let total = 0;
  let start = 0;
  let end = 0;
  const flush = () => {
    if (lines.length === 0) return;
    chunks.push({ title: '', content: lines.join('\n'), start, end });
    lines = [];
    size = 0;
  };
  for (const seg of segments.flatMap(splitLongSegment)) {
    let line = seg.speaker ? `${seg.speaker}: ${seg.text}` : seg.text;
    if (total + line.length > maxChars) line = line.slice(0, Math.max(0, maxChars - total)).replace(/[\ud800-\udbff]$/, '');
    if (!line) break;
    if (size > 0 && size + line.length > KNOWLEDGE_CHUNK_CHARS) flush();
    if (lines.length === 0) start = seg.start;
    lines.push(line);
    size += line.length + 1;
    total += line.length + 1;
    end = seg.end;
    if (total >= maxChars) break;
  }
  flush();
  const timed = chunks.some((c) => c.end > 0);
  return chunks.map((c, i) => ({
    ...c,
    title:
      chunks.length === 1
        ? topic
        : `${topic} (part ${i + 1} of ${chunks.length}${timed ? `, ${clockTime(c.start)}-${clockTime(c.end)}` : ''})`,
  }));
}

/** The chunks' vectors, computed before the transaction that writes them (writeKnowledgeRows). */
export async function embedKnowledgeChunks(ctx: Pick<CoreContext, 'embedder'>, chunks: readonly KnowledgeChunk[]): Promise<number[][]> {
  if (chunks.length === 0) return [];
  return ctx.embedder.embed(chunks.map((c) => embeddingText('transcript_knowledge', c.title, c.content)));
}

/** A chunk's words only: "Speaker: " line prefixes out, whitespace collapsed. */
const bareText = (content: string) =>
  content
    .replace(/^[^:\n]{1,80}:\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Path B: the transcript as approved TranscriptKnowledge rows, each embedded inline (the vectors from
 * embedKnowledgeChunks, written with the row), so they are searchable the moment the transaction commits.
 * Rows of an earlier run for the meeting are replaced, except what an admin decided: promoted rows (an
 * FAQ now) and rejected ones stay, and a new chunk whose text is within one of them (or holds one) is
 * not written again (a re-process would otherwise bring back, approved and searchable, rejected text).
 */
export async function writeKnowledgeRows(
  tx: Tx,
  meeting: { id: string; batchId: string | null },
  chunks: readonly KnowledgeChunk[],
  embedded: { vectors: readonly number[][]; model: string },
  proposals: readonly (FaqProposal | null)[] = [],
): Promise<number> {
  await tx
    .delete(transcriptKnowledge)
    .where(
      and(
        eq(transcriptKnowledge.meetingId, meeting.id),
        isNull(transcriptKnowledge.promotedFaqId),
        ne(transcriptKnowledge.status, 'rejected'),
      ),
    );
  // Compared without speaker prefixes and spacing, and by containment either way: a change of the
  // chunking (size, splitting) cuts the same text differently, and a piece of rejected text is rejected.
  const decided = (
    await tx.select({ content: transcriptKnowledge.content }).from(transcriptKnowledge).where(eq(transcriptKnowledge.meetingId, meeting.id))
  ).map((r) => bareText(r.content));
  const fresh = chunks
    .map((c, i) => ({ c, i, bare: bareText(c.content) }))
    .filter(({ bare }) => !decided.some((d) => d.includes(bare) || bare.includes(d)));
  if (fresh.length === 0) return 0;
  const now = new Date();
  await tx.insert(transcriptKnowledge).values(
    fresh.map(({ c, i }) => ({
      meetingId: meeting.id,
      batchId: meeting.batchId,
      title: c.title,
      content: c.content,
      status: 'approved' as const,
      embedding: embedded.vectors[i] as number[],
      embeddedAt: now,
      // The model the vectors came from: without it the embeddings backfill took every such row for
      // stale and embedded it again at the next worker start.
      embeddingModel: embedded.model,
      ...proposalColumns(proposals[i] ?? null),
    })),
  );
  return fresh.length;
}

/** Segments stored on the meeting by an earlier run (for re-processing without a new download). */
/** What the processing steps read of a meeting: where it stands and what its earlier runs kept. */
export const MEETING_STATE_COLUMNS = {
  id: confMeetings.id,
  batchId: confMeetings.batchId,
  topic: confMeetings.topic,
  status: confMeetings.status,
  payload: confMeetings.payload,
};

export const storedSegments = (payload: Record<string, unknown> | null): TranscriptSegment[] | null =>
  Array.isArray(payload?.segments) ? (payload.segments as TranscriptSegment[]) : null;

/** A transient failure with a retry to come: the meeting stays pending, the error noted for the admin's view. */
export async function noteRetry(ctx: Pick<CoreContext, 'db' | 'log'>, meetingId: string, reason: string): Promise<void> {
  await ctx.db
    .update(confMeetings)
    .set({ error: `retrying after: ${reason}`.slice(0, 1000), updatedAt: sql`now()` })
    .where(and(eq(confMeetings.id, meetingId), sql`${confMeetings.status} <> 'completed'`));
  ctx.log.warn({ meetingId, reason }, '[conf] meeting step failed; the job retries');
}

/** Marks a meeting failed with its reason (an extension of the spec's pending/completed states). */
export async function markMeetingFailed(ctx: Pick<CoreContext, 'db' | 'log'>, meetingId: string, reason: string): Promise<void> {
  await ctx.db
    .update(confMeetings)
    .set({ status: 'failed', error: reason.slice(0, 1000), updatedAt: sql`now()` })
    .where(and(eq(confMeetings.id, meetingId), sql`${confMeetings.status} <> 'completed'`));
  ctx.log.warn({ meetingId, reason }, '[conf] meeting failed');
}
