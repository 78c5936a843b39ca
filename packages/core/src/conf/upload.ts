import { randomUUID } from 'node:crypto';
import { confMeetings, transcriptKnowledge } from '@cfaq/db/schema/index';
import { eq } from 'drizzle-orm';
import type { CoreContext } from '../context.js';
import { AppError, badRequest, Code, conflict, unprocessable } from '../errors/index.js';
import { lockProgramForWrite } from '../programs/lock.js';
import type { Actor } from '../shared/db.js';
import { type IngestResult, storeOrRetry } from './ingest.js';
import type { UploadResult } from './shape.js';
import { sanitizeTopic } from './topic.js';
import { type ParsedTranscript, parseTranscript, TranscriptError } from './transcript.js';

type Ctx = Pick<CoreContext, 'db' | 'pool' | 'config' | 'secrets' | 'clock' | 'log' | 'embedder' | 'jobs'>;

export interface UploadInput {
  source: 'manual_vtt' | 'manual_raw';
  content: string;
  topic?: string | undefined;
  fileName?: string | undefined;
  batchId?: string | undefined;
}

/**
 * POST /conf/upload-transcript: the transcript is parsed first (an unusable one is a 400/422 and no
 * meeting is created), then a meeting (sourcing manual_vtt or manual_raw, a generated
 * `manual-<uuid>` provider id) goes through the same two paths as a webhook meeting, within the
 * request. The topic blacklist applies to provider events only: an upload is an admin's explicit act.
 */
export async function uploadTranscript(ctx: Ctx, actor: Actor, input: UploadInput): Promise<UploadResult> {
  let parsed: ParsedTranscript;
  try {
    parsed = parseTranscript(input.source === 'manual_vtt' ? 'vtt' : 'raw', input.content);
  } catch (err) {
    if (!(err instanceof TranscriptError)) throw err;
    if (err.code === Code.INVALID_VTT) throw badRequest(Code.INVALID_VTT, err.message, [{ path: 'body.file', message: err.message }]);
    throw unprocessable(err.code, err.message);
  }
  const topic = sanitizeTopic(input.topic ?? input.fileName?.replace(/\.(vtt|txt)$/i, '') ?? 'Uploaded transcript');
  const confMeetingId = `manual-${randomUUID()}`;
  const [meeting] = await ctx.db.transaction(async (tx) => {
    // The program is locked while the meeting is inserted: a delete racing the upload either waits for
    // the row or makes the upload a 404 that creates no meeting (storeTranscript locks it again).
    const batchId = await lockProgramForWrite(tx, input.batchId, { allowArchived: true });
    return tx
      .insert(confMeetings)
      .values({
        confMeetingId,
        batchId,
        userId: actor.id,
        topic,
        status: 'pending',
        sourcing: input.source,
        // The parsed transcript is kept from the start: an upload whose store fails (the embedder down:
        // 503) leaves a failed meeting that a re-process (POST /conf/meetings/:id/transcript) stores
        // from it; without it the offered re-process could only fail ("nothing to download").
        payload: { uploadedBy: actor.id, segments: parsed.segments },
      })
      .returning({ id: confMeetings.id, batchId: confMeetings.batchId, topic: confMeetings.topic });
  });
  if (!meeting) throw new Error('meeting insert returned nothing');
  // No retry comes for an upload: a failure fails its meeting (not left pending) and answers the request.
  let result: IngestResult;
  try {
    result = await storeOrRetry(ctx, meeting, parsed, { finalAttempt: true });
  } catch (err) {
    // The program was deleted while the transcript was embedded and extracted (the store locks it
    // again): the upload is a 404, so the meeting it saved goes too, and the upload wrote nothing.
    if (err instanceof AppError && err.code === Code.PROGRAM_NOT_FOUND) await dropMeeting(ctx, meeting.id);
    throw err;
  }
  if (result.status !== 'completed') throw conflict(Code.MEETING_PROCESSING, 'The meeting was processed concurrently');
  return {
    meetingId: meeting.id,
    confMeetingId,
    topic,
    status: 'completed',
    insightCount: result.insightCount,
    knowledgeCount: result.knowledgeCount,
    insightsStatus: result.insightsStatus,
    insightsError: result.insightsError,
  };
}

/**
 * Deletes an upload's meeting and what hangs off it, in one transaction: its insights go with it (ON
 * DELETE CASCADE); its knowledge rows would only lose their meeting (SET NULL), so they are deleted
 * first. A failed store wrote none of either (its transaction rolled back); this covers them all the same.
 */
async function dropMeeting(ctx: Pick<CoreContext, 'db'>, meetingId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await tx.delete(transcriptKnowledge).where(eq(transcriptKnowledge.meetingId, meetingId));
    await tx.delete(confMeetings).where(eq(confMeetings.id, meetingId));
  });
}
