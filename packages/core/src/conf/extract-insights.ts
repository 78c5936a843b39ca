import { confInsights, confMeetings } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { generateStructured } from '../ai/generate.js';
import type { CoreContext } from '../context.js';
import { type FaqProposal, proposalColumns, proposeFaqUpdates } from '../knowledge/faq-match.js';
import type { Tx } from '../shared/db.js';
import { logPipelineStep } from '../shared/pipeline-log.js';
import { hasVisibleText } from '../shared/text.js';
import { clockTime, MEETING_STATE_COLUMNS, storedSegments } from './knowledge-store.js';
import type { InsightsStatus } from './shape.js';
import type { ParsedTranscript } from './transcript.js';
import { segmentsToText } from './vtt.js';

/** At most this many insights per meeting. */
export const MAX_INSIGHTS = 20;
/** The prompt carries at most this much transcript (the parsed text is already capped at 50,000). */
const PROMPT_CHARS = 50_000;

const QUESTION_MAX = 500;
const ANSWER_MAX = 4000;

// No maxItems: a provider that takes it only as a hint (Anthropic's structured output) may send more,
// and a reply of 21 good insights failed whole; the first MAX_INSIGHTS are kept instead. Nor bounds on
// an item: one blank question, empty answer or line -1 failed the whole reply (and its retries got the
// same one); each item is checked below and a bad one is dropped alone.
const InsightsOutput = T.Object({
  insights: T.Array(
    T.Object({
      question: T.String({ description: `3 to ${QUESTION_MAX} characters` }),
      answer: T.String({ description: `1 to ${ANSWER_MAX} characters` }),
      segment: T.Number({ description: 'number (a whole number from 0) of the transcript line the answer comes from' }),
    }),
    { description: `at most ${MAX_INSIGHTS}, the clearest first` },
  ),
});
type InsightsOutput = Static<typeof InsightsOutput>;

/**
 * Case and spacing aside, and the closing punctuation: "When is the exam?" repeats "when is the exam".
 * Symbols count (the duplicate check's questionKey drops them, which made "C++" and "C#", "-5 °C" and
 * "5 °C" one insight).
 */
const repeatKey = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.?!]+$/, '');

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
  /**
   * A failure another try may mend (the provider down, slow, rate limited, a malformed reply, a key an
   * admin may fix); false for a reply truncated at the token cap or a refusal, which the same prompt
   * gets again (temperature 0).
   */
  retryable?: boolean;
}

/**
 * What the meeting's payload keeps of its last extraction (`payload.insights`): the outcome, the
 * reason when there are no insights, and `retrying` while a conf.extract-insights job is queued.
 */
export interface InsightsRecord {
  outcome: Extraction['outcome'];
  reason?: string;
  retrying?: boolean;
}

export const insightsRecord = (e: Pick<Extraction, 'outcome' | 'reason'>, retrying = false): InsightsRecord => ({
  outcome: e.outcome,
  ...(e.reason ? { reason: e.reason.slice(0, 1000) } : {}),
  ...(retrying ? { retrying: true } : {}),
});

/** The record as the meeting's read shows it (`insightsStatus`, `insightsError`); null when there is none. */
export function insightsView(record: InsightsRecord | null | undefined): {
  insightsStatus: InsightsStatus | null;
  insightsError: string | null;
} {
  if (!record?.outcome) return { insightsStatus: null, insightsError: null };
  if (record.outcome === 'extracted') return { insightsStatus: 'extracted', insightsError: null };
  const insightsError = record.reason ?? null;
  if (record.outcome === 'no_provider') return { insightsStatus: 'skipped', insightsError };
  return { insightsStatus: record.retrying ? 'retrying' : 'failed', insightsError };
}

/** SQL: the meeting's payload with its extraction record replaced. */
const withRecord = (record: InsightsRecord) =>
  sql`coalesce(${confMeetings.payload}, '{}'::jsonb) || ${JSON.stringify({ insights: record })}::jsonb`;

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
    const retryable = r.outcome === 'failed' && r.failure !== 'refused' && r.failure !== 'truncated';
    return { insights: [], outcome: r.outcome, reason: r.reason, retryable };
  }
  const out: ExtractedInsight[] = [];
  // A raw-text upload has no cue times (every segment 0-0): its insights get none either.
  const timed = transcript.segments.some((s) => s.end > 0);
  const asked = new Set<string>();
  for (const item of (r.value as InsightsOutput).insights) {
    if (out.length === MAX_INSIGHTS) break;
    // Only a line the prompt showed is provenance: one past the prompt's cut (or not in the transcript)
    // would credit a line the model never read.
    const seg =
      Number.isInteger(item.segment) && item.segment >= 0 && item.segment < lines.length ? transcript.segments[item.segment] : undefined;
    if (!seg) continue;
    // Blank or invisible text is no insight (it was stored empty, and could not become a FAQ), nor text
    // past what an insight holds; the same question with the same answer twice in one reply is one
    // insight (two answers to one question stay two, for the reviewer to choose).
    const question = item.question.trim();
    const answer = item.answer.trim();
    if (!hasVisibleText(question) || question.length < 3 || question.length > QUESTION_MAX) continue;
    if (!hasVisibleText(answer) || answer.length > ANSWER_MAX) continue;
    const key = `${repeatKey(question)}\u0000${repeatKey(answer)}`;
    if (asked.has(key)) continue;
    asked.add(key);
    const excerpt = seg.text.length > 500 ? `${seg.text.slice(0, 500)}...` : seg.text;
    out.push({
      question,
      answer,
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
  const decided = new Set(kept.map((r) => repeatKey(r.question)));
  const fresh = insights.map((i, n) => ({ i, n })).filter(({ i }) => !decided.has(repeatKey(i.question)));
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

export type InsightRetryResult =
  | { status: 'skipped'; reason: string }
  | { status: 'extracted'; insightCount: number }
  | { status: 'failed' | 'no_provider'; reason: string };

/**
 * The conf.extract-insights job: path A again for a completed meeting whose extraction failed
 * (storeTranscript queues it in its completing transaction), from the transcript the meeting keeps.
 * It does nothing unless the meeting is still completed with a failed extraction waiting for this
 * retry (`retrying`: a re-process, another run of this job, or the last failed attempt got there
 * first), and the write is conditional on the same, in one
 * transaction with the insights (writeInsights: unreviewed insights replaced, decided ones kept), so
 * no run duplicates insights. A failure again throws for pg-boss's retry while attempts remain, and
 * the last one records the meeting's extraction as failed with its reason.
 */
export async function retryInsightExtraction(
  ctx: Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'log' | 'clock' | 'embedder'>,
  meetingId: string,
  opts: { finalAttempt: boolean },
): Promise<InsightRetryResult> {
  const [m] = await ctx.db.select(MEETING_STATE_COLUMNS).from(confMeetings).where(eq(confMeetings.id, meetingId));
  if (!m) return { status: 'skipped', reason: 'meeting not found' };
  const record = m.payload?.insights as InsightsRecord | undefined;
  if (m.status !== 'completed' || record?.outcome !== 'failed' || !record.retrying) {
    return { status: 'skipped', reason: 'no failed extraction waiting for a retry' };
  }
  const segments = storedSegments(m.payload);
  if (!segments?.length) return { status: 'skipped', reason: 'the meeting keeps no transcript' };
  const extraction = await extractInsights(ctx, m, { segments, text: segmentsToText(segments) });
  const stillFailed = and(
    eq(confMeetings.id, meetingId),
    eq(confMeetings.status, 'completed'),
    sql`${confMeetings.payload}->'insights'->>'outcome' = 'failed'`,
    sql`${confMeetings.payload}->'insights'->>'retrying' = 'true'`,
  );
  if (extraction.outcome !== 'extracted') {
    const retrying = extraction.outcome === 'failed' && extraction.retryable !== false && !opts.finalAttempt;
    await ctx.db
      .update(confMeetings)
      .set({ payload: withRecord(insightsRecord(extraction, retrying)), updatedAt: sql`now()` })
      .where(stillFailed);
    const reason = extraction.reason ?? extraction.outcome;
    if (retrying) throw new Error(`insight extraction failed again: ${reason}`);
    return { status: extraction.outcome, reason };
  }
  const proposals = await proposeFaqUpdates(
    ctx,
    m.batchId,
    extraction.insights.map((i) => i.question),
  );
  const insightCount = await ctx.db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(confMeetings)
      .set({ payload: withRecord(insightsRecord(extraction)), updatedAt: sql`now()` })
      .where(stillFailed)
      .returning({ id: confMeetings.id });
    if (!claimed) return null;
    const n = await writeInsights(tx, m, extraction.insights, proposals);
    await tx.update(confMeetings).set({ insightCount: n }).where(eq(confMeetings.id, meetingId));
    return n;
  });
  if (insightCount === null) return { status: 'skipped', reason: 'the meeting changed meanwhile' };
  return { status: 'extracted', insightCount };
}
