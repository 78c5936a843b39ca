import { confInsights } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { and, eq, isNull } from 'drizzle-orm';
import { generateStructured } from '../ai/generate.js';
import type { CoreContext } from '../context.js';
import { type FaqProposal, proposalColumns } from '../knowledge/faq-match.js';
import { questionKey } from '../search/duplicate-rule.js';
import type { Tx } from '../shared/db.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { clockTime } from './knowledge-store.js';
import type { ParsedTranscript } from './transcript.js';

/** At most this many insights per meeting. */
export const MAX_INSIGHTS = 20;
/** The prompt carries at most this much transcript (the parsed text is already capped at 50,000). */
const PROMPT_CHARS = 50_000;

const InsightsOutput = T.Object({
  insights: T.Array(
    T.Object({
      question: T.String({ minLength: 3, maxLength: 500 }),
      answer: T.String({ minLength: 1, maxLength: 4000 }),
      segment: T.Integer({ minimum: 0, description: 'number of the transcript line the answer comes from' }),
    }),
    { maxItems: MAX_INSIGHTS },
  ),
});
type InsightsOutput = Static<typeof InsightsOutput>;

export interface ExtractedInsight {
  question: string;
  answer: string;
  speaker: string | null;
  /** Provenance: the transcript line the answer comes from ("Speaker: excerpt"). */
  context: string;
  /** That line's cue times, milliseconds from the start of the recording (null: an untimed raw transcript). */
  cueStartMs: number | null;
  cueEndMs: number | null;
}

export interface Extraction {
  insights: ExtractedInsight[];
  /** What happened: extracted, skipped (no provider), failed. */
  outcome: 'extracted' | 'no_provider' | 'failed';
  reason?: string;
}

const SYSTEM = `You read a meeting transcript of a learning program and list the questions participants asked that got a clear answer in the meeting, as FAQ candidates.
Each insight: the question as a participant would ask it, the answer given in the meeting (only what was said, never invented), and the number of the transcript line holding the answer.
Leave out small talk, personal matters and anything unanswered. Answer with an empty list when there is nothing.`;

/**
 * Path A: FAQ candidates from a transcript through the AI provider (pipeline conf_insights). The model
 * names the numbered line each answer comes from; speaker and cue times are taken from that line of
 * the parsed transcript, not from the model. No provider configured: no insights, and the outcome says
 * so (the meeting still completes with its knowledge).
 */
export async function extractInsights(
  ctx: Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'log' | 'clock'>,
  meeting: { id: string; batchId: string | null; topic: string },
  transcript: ParsedTranscript,
): Promise<Extraction> {
  const lines: string[] = [];
  let size = 0;
  for (const [i, s] of transcript.segments.entries()) {
    const line = `[${i}] ${clockTime(s.start)}-${clockTime(s.end)} ${s.speaker ? `${s.speaker}: ` : ''}${s.text}`;
    if (size + line.length > PROMPT_CHARS) break;
    lines.push(line);
    size += line.length + 1;
  }
  const r = await generateStructured(ctx, {
    pipeline: 'conf_insights',
    batchId: meeting.batchId,
    schema: InsightsOutput,
    schemaName: 'meeting_insights',
    system: SYSTEM,
    prompt: `Meeting topic: ${meeting.topic}\n\nTranscript (numbered lines):\n${lines.join('\n')}`,
  });
  if (!r.ok) {
    logPipelineStep(ctx.log, { action: 'conf_insights', id: meeting.id, conf: null, verdict: r.outcome, extra: { reason: r.reason } });
    return { insights: [], outcome: r.outcome, reason: r.reason };
  }
  const out: ExtractedInsight[] = [];
  // A raw-text upload has no cue times (every segment 0-0): its insights get none either.
  const timed = transcript.segments.some((s) => s.end > 0);
  for (const item of (r.value as InsightsOutput).insights) {
    const seg = transcript.segments[item.segment];
    if (!seg) continue; // a line number the transcript does not have: no provenance, no insight
    const excerpt = seg.text.length > 500 ? `${seg.text.slice(0, 500)}...` : seg.text;
    out.push({
      question: item.question.trim(),
      answer: item.answer.trim(),
      speaker: seg.speaker,
      context: `${seg.speaker ? `${seg.speaker}: ` : ''}${excerpt}`,
      cueStartMs: timed ? Math.round(seg.start * 1000) : null,
      cueEndMs: timed ? Math.round(seg.end * 1000) : null,
    });
  }
  logPipelineStep(ctx.log, { action: 'conf_insights', id: meeting.id, conf: null, verdict: 'extracted', extra: { insights: out.length } });
  return { insights: out, outcome: 'extracted' };
}

/**
 * Replaces the meeting's unreviewed, unconverted insights with new ones (inside the completing
 * transaction), each with its "update FAQ X" proposal (knowledge/faq-match.ts; same order, null: new).
 */
export async function writeInsights(
  tx: Tx,
  meeting: { id: string; batchId: string | null },
  insights: readonly ExtractedInsight[],
  proposals: readonly (FaqProposal | null)[] = [],
): Promise<number> {
  // Returns the meeting's insight count after the write.
  await tx
    .delete(confInsights)
    .where(and(eq(confInsights.meetingId, meeting.id), eq(confInsights.status, 'pending_review'), isNull(confInsights.convertedFaqId)));
  // What an admin already decided (approved, rejected, converted) stays; the same question found again
  // by a re-process is not offered for review a second time.
  const kept = await tx.select({ question: confInsights.question }).from(confInsights).where(eq(confInsights.meetingId, meeting.id));
  const decided = new Set(kept.map((r) => questionKey(r.question)));
  const fresh = insights.map((i, n) => ({ i, n })).filter(({ i }) => !decided.has(questionKey(i.question)));
  // The meeting's insight count: the ones kept from earlier runs and the new ones.
  if (fresh.length === 0) return kept.length;
  await tx.insert(confInsights).values(
    fresh.map(({ i, n }) => ({
      meetingId: meeting.id,
      batchId: meeting.batchId,
      question: i.question,
      answer: i.answer,
      speaker: i.speaker,
      context: i.context,
      cueStartMs: i.cueStartMs,
      cueEndMs: i.cueEndMs,
      status: 'pending_review' as const,
      ...proposalColumns(proposals[n] ?? null),
    })),
  );
  return kept.length + fresh.length;
}
