import { comments, communityPosts, documentInsights, transcriptKnowledge } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { and, eq, gte, inArray, isNull, sql } from 'drizzle-orm';
import { type FailureKind, generateStructured } from '../ai/generate.js';
import { adminLogBy, writeAdminLog } from '../audit/index.js';
import { chunkTranscript } from '../conf/knowledge-store.js';
import type { CoreContext } from '../context.js';
import { embeddingText } from '../embeddings/embed-row.js';
import { relevanceCutoff } from '../embeddings/embedder.js';
import { Code, conflict, notFound, unavailable, unprocessable } from '../errors/index.js';
import { toFaqView } from '../faqs/view.js';
import { inLiveProgram } from '../programs/live.js';
import { lockProgramForWrite } from '../programs/lock.js';
import { resolveProgramId } from '../programs/resolve.js';
import type { Actor, Tx } from '../shared/db.js';
import { type Page, type PageQuery, pageWindow, toPage } from '../shared/pagination.js';
import { toDate } from '../shared/shape.js';
import { hasVisibleText } from '../shared/text.js';
import { type FaqProposal, proposalColumns, proposeFaqUpdates } from './faq-match.js';
import { writeFaqFromKnowledge } from './faq-write.js';
import { searchKnowledge } from './search.js';
import type {
  ChatAnswer,
  KnowledgeHit,
  KnowledgeItem,
  KnowledgeStatus,
  KnowledgeType,
  PostChatAnswer,
  PromoteKnowledge,
  UpvoteKnowledge,
} from './shape.js';
import { COMMUNITY_KNOWLEDGE_SOURCE, communitySourceLive } from './withdraw.js';

const UNION = sql`(
  select id, 'transcript' as type, title, content, status::text as status, batch_id, meeting_id, 'transcript' as source_type,
         null::text as source_ref, promoted_faq_id, proposed_faq_id, proposed_faq_score, embedding is not null as embedded,
         created_at, updated_at
    from transcript_knowledge
  union all
  select id, 'document', title, content, status::text, batch_id, null::uuid, source_type, source_ref, promoted_faq_id,
         proposed_faq_id, proposed_faq_score, embedding is not null, created_at, updated_at
    from document_insights
) k`;

interface Row {
  id: string;
  type: KnowledgeType;
  title: string;
  content: string;
  status: KnowledgeStatus;
  batch_id: string | null;
  meeting_id: string | null;
  source_type: string;
  source_ref: string | null;
  promoted_faq_id: string | null;
  proposed_faq_id: string | null;
  proposed_faq_score: number | null;
  embedded: boolean;
  created_at: Date;
  updated_at: Date;
}

const toItem = (r: Row): KnowledgeItem => ({
  id: r.id,
  type: r.type,
  title: r.title,
  content: r.content,
  status: r.status,
  batchId: r.batch_id,
  meetingId: r.meeting_id,
  sourceType: r.source_type,
  sourceRef: r.source_ref,
  promotedFaqId: r.promoted_faq_id,
  proposedFaqId: r.proposed_faq_id,
  proposedFaqScore: r.proposed_faq_score === null ? null : Number(r.proposed_faq_score),
  embedded: r.embedded,
  createdAt: toDate(r.created_at),
  updatedAt: toDate(r.updated_at),
});

/** The admin-log target type of an item (its table's model name). */
const logTarget = (item: KnowledgeItem) => (item.type === 'transcript' ? 'TranscriptKnowledge' : 'DocumentInsight');
/** The admin behind a knowledge write: the admin log records them and their address (spec: admin actions are audit-logged). */
type Admin = Actor & { ip?: string | undefined };

export interface ListKnowledgeQuery extends PageQuery {
  type?: KnowledgeType | undefined;
  status?: KnowledgeStatus | undefined;
  batchId?: string | undefined;
  meetingId?: string | undefined;
  q?: string | undefined;
}

/** GET /knowledge/: TranscriptKnowledge and DocumentInsight rows (the knowledge base), newest first. */
export async function listKnowledge(ctx: Pick<CoreContext, 'db'>, q: ListKnowledgeQuery): Promise<Page<KnowledgeItem>> {
  const w = pageWindow(q);
  const conds = [
    q.batchId
      ? sql`k.batch_id = ${await resolveProgramId(ctx, q.batchId, { allowArchived: true })}`
      : inLiveProgram(sql`k.batch_id`, { nullable: true }),
  ];
  if (q.type) conds.push(sql`k.type = ${q.type}`);
  if (q.status) conds.push(sql`k.status = ${q.status}`);
  if (q.meetingId) conds.push(sql`k.meeting_id = ${q.meetingId}`);
  if (q.q?.trim())
    conds.push(
      sql`(k.title ilike ${`%${q.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} or k.content ilike ${`%${q.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`})`,
    );
  const where = sql.join(conds, sql` and `);
  const [rows, total] = await Promise.all([
    ctx.db.execute(sql`select * from ${UNION} where ${where} order by k.created_at desc, k.id limit ${w.limit} offset ${w.offset}`),
    ctx.db.execute(sql`select count(*)::int as n from ${UNION} where ${where}`),
  ]);
  return toPage((rows.rows as unknown as Row[]).map(toItem), (total.rows[0] as { n: number }).n, w);
}

/** One item by id; `live`: a deleted program's item is not found (404, as an unknown id). */
async function findItem(ctx: Pick<CoreContext, 'db'>, id: string, opts: { live?: boolean } = {}): Promise<KnowledgeItem> {
  const live = opts.live ? sql` and ${inLiveProgram(sql`k.batch_id`, { nullable: true })}` : sql``;
  const { rows } = await ctx.db.execute(sql`select * from ${UNION} where k.id = ${id}${live}`);
  const row = rows[0] as Row | undefined;
  if (!row) throw notFound('Knowledge item', Code.KNOWLEDGE_NOT_FOUND);
  return toItem(row);
}

/** GET /knowledge/search: the knowledge-base search (approved rows of the program, by meaning). */
export async function searchKnowledgeItems(
  ctx: Pick<CoreContext, 'db' | 'pool' | 'embedder' | 'log' | 'config'>,
  q: { q: string; batchId?: string | undefined; limit?: number | undefined },
): Promise<{ results: KnowledgeHit[] }> {
  const batchId = await resolveProgramId(ctx, q.batchId, { allowArchived: true });
  const hits = await searchKnowledge(ctx, { query: q.q, batchId, k: q.limit ?? 5 });
  if (hits === null) throw unavailable(Code.KNOWLEDGE_SEARCH_UNAVAILABLE, 'The knowledge search failed; retry later');
  return { results: hits };
}

/**
 * The item's row locked for the rest of the transaction, its state read again under the lock: an
 * approve or reject racing a promote then waits for it and sees what it did (both answered 200 and
 * the admin was told "rejected" about an item that became a FAQ).
 */
async function lockedState(tx: Tx, item: KnowledgeItem): Promise<{ status: string; promotedFaqId: string | null }> {
  const table = item.type === 'transcript' ? transcriptKnowledge : documentInsights;
  const { rows } = await tx.execute<{ status: string; promoted_faq_id: string | null }>(
    sql`select status, promoted_faq_id from ${table} where id = ${item.id} for update`,
  );
  const row = rows[0];
  if (!row) throw notFound('Knowledge item', Code.KNOWLEDGE_NOT_FOUND);
  return { status: row.status, promotedFaqId: row.promoted_faq_id };
}

/**
 * PUT /knowledge/:id/approve and /reject. Approve: pending_review or rejected -> approved (it joins
 * the knowledge base the searches read); an item made from a community answer whose post or comment
 * was deleted stays out (422 KNOWLEDGE_SOURCE_DELETED; the check locks the post against a delete
 * racing it). Reject: pending_review or approved -> rejected (it leaves the searches). A promoted item
 * no longer changes (422); an item of a deleted program is 404.
 */
export async function setKnowledgeStatus(
  ctx: Pick<CoreContext, 'db' | 'clock'>,
  actor: Admin,
  id: string,
  to: 'approved' | 'rejected',
): Promise<KnowledgeItem> {
  // A deleted program's item has left every list: it takes no review either (404, as an unknown id).
  const item = await findItem(ctx, id, { live: true });
  const table = item.type === 'transcript' ? transcriptKnowledge : documentInsights;
  const now = ctx.clock.now();
  // The answer is read inside the transaction: read after commit, it could show a racing request's state.
  return ctx.db.transaction(async (tx) => {
    const locked = await lockedState(tx, item);
    if (locked.status === 'promoted' || locked.promotedFaqId)
      throw unprocessable(Code.KNOWLEDGE_PROMOTED, 'A promoted item no longer changes state');
    // Already so: nothing changes, so nothing is stamped or logged (as a repeated dna mark).
    if (locked.status === to) return findItem({ db: tx as CoreContext['db'] }, id);
    if (to === 'approved' && item.type === 'document' && item.sourceType === COMMUNITY_KNOWLEDGE_SOURCE) {
      if (!item.sourceRef || !(await communitySourceLive(tx, item.sourceRef))) {
        throw unprocessable(Code.KNOWLEDGE_SOURCE_DELETED, 'The community post or answer this item came from was deleted');
      }
    }
    await tx.update(table).set({ status: to, reviewedBy: actor.id, reviewedAt: now, updatedAt: now }).where(eq(table.id, id));
    await writeAdminLog(tx, {
      ...adminLogBy(actor),
      action: `knowledge.${to}`,
      targetType: logTarget(item),
      targetId: id,
      details: { from: locked.status, to, title: item.title },
      ...(item.batchId ? { batchId: item.batchId } : {}),
    });
    return findItem({ db: tx as CoreContext['db'] }, id);
  });
}

/**
 * PUT /knowledge/:id/promote: the item becomes FAQ content in its program and `promoted` with
 * promotedFaqId. When it matches an existing FAQ closely (proposal recomputed now, faq-match.ts), or
 * `faqId` names one, that FAQ is updated (answer: the given one or the content; question only when
 * given) instead of a second FAQ being created; `faqId: null` always creates (question: the given one
 * or the title; answer: the given one or the content). A second promote is 409; a rejected item must
 * be approved first (422).
 */
export async function promoteKnowledge(
  ctx: Pick<CoreContext, 'db' | 'clock' | 'config' | 'jobs' | 'pool' | 'embedder'>,
  actor: Admin,
  id: string,
  input: { question?: string | undefined; answer?: string | undefined; category?: string | undefined; faqId?: string | null | undefined },
): Promise<PromoteKnowledge> {
  const item = await findItem(ctx, id);
  if (item.status === 'promoted' || item.promotedFaqId)
    throw conflict(Code.KNOWLEDGE_ALREADY_PROMOTED, 'This item was already promoted to a FAQ');
  if (item.status === 'rejected') throw unprocessable(Code.KNOWLEDGE_REJECTED, 'Approve the item before promoting it');
  const table = item.type === 'transcript' ? transcriptKnowledge : documentInsights;
  const [proposal] = await proposeFaqUpdates(ctx, item.batchId, [input.question ?? item.title]);
  const { faq, action } = await ctx.db.transaction(async (tx) => {
    const locked = await lockedState(tx, item);
    if (locked.status === 'promoted' || locked.promotedFaqId)
      throw conflict(Code.KNOWLEDGE_ALREADY_PROMOTED, 'This item was already promoted to a FAQ');
    if (locked.status === 'rejected') throw unprocessable(Code.KNOWLEDGE_REJECTED, 'Approve the item before promoting it');
    // A deleted program takes no new FAQ (404), as a direct write to it; an archived one does (admins write there).
    // Locked until commit, so a delete racing the promotion waits for it.
    const batchId = await lockProgramForWrite(tx, item.batchId, { allowArchived: true });
    const written = await writeFaqFromKnowledge(ctx, tx, actor, {
      target: input.faqId === null ? null : (input.faqId ?? proposal?.faqId ?? null),
      batchId,
      question: input.question,
      newQuestion: item.title,
      answer: input.answer ?? item.content,
      category: input.category,
      source: item.type === 'transcript' ? 'transcript_knowledge' : 'manual',
      sourceId: item.id,
    });
    const now = ctx.clock.now();
    const [done] = await tx
      .update(table)
      .set({
        status: 'promoted',
        promotedFaqId: written.faq.id,
        ...proposalColumns(proposal ?? null),
        reviewedBy: actor.id,
        reviewedAt: now,
        updatedAt: now,
      })
      .where(and(eq(table.id, id), isNull(table.promotedFaqId)))
      .returning({ id: table.id });
    if (!done) throw conflict(Code.KNOWLEDGE_ALREADY_PROMOTED, 'This item was already promoted to a FAQ');
    await writeAdminLog(tx, {
      ...adminLogBy(actor),
      action: 'knowledge.promoted',
      targetType: logTarget(item),
      targetId: id,
      details: { faqId: written.faq.id, faqAction: written.action, question: written.faq.question },
      batchId,
    });
    return written;
  });
  return { faq: toFaqView(faq, actor), item: await findItem(ctx, id), action };
}

/**
 * POST /knowledge/ingest: a text document becomes DocumentInsight rows (split on paragraph/line
 * boundaries into parts of about 1,500 characters), approved (an admin put them there) and embedded
 * inline, so the knowledge searches find them at once.
 */
export async function ingestDocument(
  ctx: Pick<CoreContext, 'db' | 'embedder' | 'pool'>,
  actor: Admin,
  input: { title: string; content: string; sourceRef?: string | undefined; batchId?: string | undefined },
): Promise<{ items: KnowledgeItem[] }> {
  const batchId = await resolveProgramId(ctx, input.batchId, { allowArchived: true });
  const segments = input.content
    .replace(/\r\n?/g, '\n')
    .split(/\n+/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((text) => ({ speaker: null, start: 0, end: 0, text }));
  const chunks = chunkTranscript(input.title.trim(), segments, 200_000);
  if (chunks.length === 0) throw unprocessable(Code.EMPTY_DOCUMENT, 'The document has no text');
  const vectors = await ctx.embedder.embed(chunks.map((c) => embeddingText('document_insights', c.title, c.content)));
  const proposals = await proposeFaqUpdates(
    ctx,
    batchId,
    chunks.map((c) => c.title),
  );
  const now = new Date();
  const ids = await ctx.db.transaction(async (tx) => {
    // Locked again until commit (the check above is before the embedding): a program delete racing the
    // ingest waits for it, or makes it a 404 that writes nothing.
    await lockProgramForWrite(tx, batchId, { allowArchived: true });
    const rows = await tx
      .insert(documentInsights)
      .values(
        chunks.map((c, i) => ({
          ...proposalColumns(proposals[i] ?? null),
          batchId,
          title: c.title,
          content: c.content,
          sourceType: 'document',
          sourceRef: input.sourceRef ?? null,
          status: 'approved' as const,
          createdBy: actor.id,
          embedding: vectors[i] as number[],
          embeddedAt: now,
          embeddingModel: ctx.embedder.model,
        })),
      )
      .returning({ id: documentInsights.id });
    // One row per document (its parts by id), committed with them.
    await writeAdminLog(tx, {
      ...adminLogBy(actor),
      action: 'knowledge.ingested',
      targetType: 'DocumentInsight',
      ...(rows[0] ? { targetId: rows[0].id } : {}),
      details: { title: input.title.trim(), sourceRef: input.sourceRef ?? null, parts: rows.length, itemIds: rows.map((r) => r.id) },
      batchId,
    });
    return rows;
  });
  return { items: await Promise.all(ids.map((r) => findItem(ctx, r.id))) };
}

/** Upvotes an accepted community answer needs to become knowledge. */
export const UPVOTE_KNOWLEDGE_THRESHOLD = 3;

/**
 * POST /knowledge/process-upvotes: every accepted (or verified) comment with at least 3 upvotes on a
 * live post becomes an approved DocumentInsight (source community_post, sourceRef the comment id;
 * once per comment: a row withdrawn when its post was deleted still counts), embedded inline. The
 * rows are written in a transaction that locks their posts (FOR SHARE) and keeps only the comments
 * whose post and comment are still live, so a post deleted while the embeddings were computed gets
 * no knowledge after its delete withdrew what it had.
 */
export async function processUpvotes(
  ctx: Pick<CoreContext, 'db' | 'embedder' | 'pool'>,
  opts: { minUpvotes?: number | undefined; batchId?: string | undefined } = {},
  /** The admin who ran it (POST /knowledge/process-upvotes): a run that makes knowledge is audit-logged. */
  actor?: Admin,
): Promise<UpvoteKnowledge> {
  const min = opts.minUpvotes ?? UPVOTE_KNOWLEDGE_THRESHOLD;
  const batchId = opts.batchId ? await resolveProgramId(ctx, opts.batchId, { allowArchived: true }) : undefined;
  const rows = await ctx.db
    .select({
      commentId: comments.id,
      postId: communityPosts.id,
      body: comments.body,
      title: communityPosts.title,
      batchId: communityPosts.batchId,
    })
    .from(comments)
    .innerJoin(communityPosts, eq(comments.postId, communityPosts.id))
    .where(
      and(
        gte(comments.upvotes, min),
        sql`(${comments.isAccepted} or ${comments.isVerified})`,
        isNull(comments.deletedAt),
        isNull(communityPosts.deletedAt),
        batchId ? eq(communityPosts.batchId, batchId) : inLiveProgram(sql`community_posts.batch_id`, { nullable: true }),
        sql`not exists (select 1 from document_insights d where d.source_type = ${COMMUNITY_KNOWLEDGE_SOURCE} and d.source_ref = ${comments.id}::text)`,
      ),
    )
    .limit(200);
  if (rows.length === 0) return { created: 0, items: [] };
  const vectors = await ctx.embedder.embed(rows.map((r) => embeddingText('document_insights', r.title, r.body)));
  // Proposals per program (a proposal never crosses programs).
  const proposals: (FaqProposal | null)[] = rows.map(() => null);
  for (const batchId of new Set(rows.map((r) => r.batchId))) {
    const at = rows.flatMap((r, i) => (r.batchId === batchId ? [i] : []));
    const found = await proposeFaqUpdates(
      ctx,
      batchId,
      at.map((i) => (rows[i] as (typeof rows)[number]).title),
    );
    for (const [n, i] of at.entries()) proposals[i] = found[n] ?? null;
  }
  const now = new Date();
  const ids = await ctx.db.transaction(async (tx) => {
    // Runs of this step wait for each other, and each skips the comments a run before it turned into
    // knowledge: two admins (or API processes) at once made every row twice.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('cfaq:process-upvotes'))`);
    const done = await tx
      .select({ ref: documentInsights.sourceRef })
      .from(documentInsights)
      .where(
        and(
          eq(documentInsights.sourceType, COMMUNITY_KNOWLEDGE_SOURCE),
          inArray(
            documentInsights.sourceRef,
            rows.map((r) => r.commentId),
          ),
        ),
      );
    const made = new Set(done.map((d) => d.ref));
    const postIds = [...new Set(rows.map((r) => r.postId))].sort();
    const livePosts = await tx
      .select({ id: communityPosts.id })
      .from(communityPosts)
      .where(and(inArray(communityPosts.id, postIds), isNull(communityPosts.deletedAt)))
      .orderBy(communityPosts.id)
      .for('share');
    const liveComments = await tx
      .select({ id: comments.id })
      .from(comments)
      .where(
        and(
          inArray(
            comments.id,
            rows.map((r) => r.commentId),
          ),
          isNull(comments.deletedAt),
        ),
      );
    const posts = new Set(livePosts.map((p) => p.id));
    const live = new Set(liveComments.map((c) => c.id));
    const values = rows.flatMap((r, i) =>
      posts.has(r.postId) && live.has(r.commentId) && !made.has(r.commentId)
        ? [
            {
              ...proposalColumns(proposals[i] ?? null),
              batchId: r.batchId,
              title: r.title,
              content: r.body,
              sourceType: COMMUNITY_KNOWLEDGE_SOURCE,
              sourceRef: r.commentId,
              status: 'approved' as const,
              embedding: vectors[i] as number[],
              embeddedAt: now,
              embeddingModel: ctx.embedder.model,
            },
          ]
        : [],
    );
    if (values.length === 0) return [];
    const inserted = await tx.insert(documentInsights).values(values).returning({ id: documentInsights.id });
    // One row per run that made knowledge, with its counts, committed with the rows.
    if (actor)
      await writeAdminLog(tx, {
        ...adminLogBy(actor),
        action: 'knowledge.upvotes_processed',
        targetType: 'DocumentInsight',
        details: {
          created: inserted.length,
          candidates: rows.length,
          minUpvotes: min,
          batchId: batchId ?? null,
          itemIds: inserted.map((r) => r.id),
        },
        ...(batchId ? { batchId } : {}),
      });
    return inserted;
  });
  return { created: ids.length, items: await Promise.all(ids.map((r) => findItem(ctx, r.id))) };
}

const ChatOutput = T.Object({
  answerable: T.Boolean(),
  answer: T.String({ maxLength: 4000 }),
  sourceIds: T.Array(T.String(), { maxItems: 10 }),
});

export const I_DONT_KNOW = "I don't know: the knowledge base has nothing on this.";
const NOT_ANSWERED_BY_ITEMS = "I don't know: the knowledge base does not answer this.";
/**
 * The call failed: the knowledge base may well hold the answer, so the text must not say it does not;
 * nor that the provider is not available when it answered with a refusal or a reply cut off.
 */
const noAnswerWritten = (found: number, why: string) =>
  `No answer was written: ${why}. The knowledge search found ${found} related item${found === 1 ? '' : 's'} (GET /knowledge/search).`;
const WHY_NO_ANSWER: Record<FailureKind, string> = {
  refused: 'the AI provider refused to answer',
  truncated: 'the AI provider’s reply was cut off at the output token cap',
  malformed: 'the AI provider’s reply could not be read as an answer',
  http_error: 'the AI provider refused the request',
  aborted: 'the call was stopped',
  timeout: 'the AI provider is not available',
  rate_limited: 'the AI provider is not available',
  server_error: 'the AI provider is not available',
  network: 'the AI provider is not available',
};
/**
 * Hits below this similarity (a plain cosine's, moved onto a calibrated embedder's scale by
 * relevanceCutoff: 0.73 for the default embedder, whose unrelated questions score about 0.6) are not
 * relevant enough to answer from.
 */
export const CHAT_MIN_SCORE = 0.35;

/**
 * GET /knowledge/chat: an answer from the knowledge base through the AI provider (pipeline
 * knowledge_chat), citing the items it used (only items the search returned can be cited). Nothing
 * relevant, or the model says the context does not answer: "I don't know", no sources. No provider
 * or a failed call: not answered, with the reason; nothing is invented.
 */
export async function knowledgeChat(
  ctx: Pick<CoreContext, 'db' | 'pool' | 'embedder' | 'log' | 'config' | 'secrets' | 'clock'>,
  q: { q: string; batchId?: string | undefined },
): Promise<ChatAnswer> {
  const batchId = await resolveProgramId(ctx, q.batchId, { allowArchived: true });
  const hits = await searchKnowledge(ctx, { query: q.q, batchId, k: 5, minScore: relevanceCutoff(ctx.embedder, CHAT_MIN_SCORE) });
  if (hits === null) throw unavailable(Code.KNOWLEDGE_SEARCH_UNAVAILABLE, 'The knowledge search failed; retry later');
  if (hits.length === 0) return { answered: false, answer: I_DONT_KNOW, sources: [], reason: 'nothing relevant in the knowledge base' };
  const context = hits.map((h) => `[${h.id}] ${h.title}\n${h.content.slice(0, 3000)}`).join('\n\n');
  const r = await generateStructured(ctx, {
    pipeline: 'knowledge_chat',
    batchId,
    schema: ChatOutput,
    schemaName: 'knowledge_answer',
    system:
      'Answer the question only from the knowledge items given, citing the ids of the items you used in sourceIds. If they do not answer it, set answerable to false.',
    prompt: `Question: ${q.q}\n\nKnowledge items:\n${context}`,
  });
  if (!r.ok) {
    const why = r.outcome === 'failed' ? WHY_NO_ANSWER[r.failure] : 'no AI provider is configured';
    return { answered: false, answer: noAnswerWritten(hits.length, why), sources: [], reason: r.reason };
  }
  const out = r.value as Static<typeof ChatOutput>;
  const cited = hits.filter((h) => out.sourceIds.includes(h.id));
  // An answer of only invisible characters is no answer (it was published as answered).
  if (!out.answerable || !hasVisibleText(out.answer) || cited.length === 0) {
    return { answered: false, answer: NOT_ANSWERED_BY_ITEMS, sources: [], reason: 'the knowledge base does not answer this' };
  }
  return {
    answered: true,
    answer: out.answer.trim(),
    sources: cited.map((h) => ({
      id: h.id,
      type: h.sourceType === 'transcript_knowledge' ? 'transcript' : 'document',
      title: h.title,
      score: h.score,
    })),
  };
}

/** POST /knowledge/answer-from-knowledge/:postId: knowledgeChat on the post's title and body; nothing is written. */
export async function answerPostFromKnowledge(
  ctx: Pick<CoreContext, 'db' | 'pool' | 'embedder' | 'log' | 'config' | 'secrets' | 'clock'>,
  postId: string,
): Promise<PostChatAnswer> {
  const [post] = await ctx.db
    .select({ title: communityPosts.title, body: communityPosts.body, batchId: communityPosts.batchId })
    .from(communityPosts)
    .where(and(eq(communityPosts.id, postId), isNull(communityPosts.deletedAt)));
  if (!post) throw notFound('Post', Code.POST_NOT_FOUND);
  const answer = await knowledgeChat(ctx, { q: `${post.title}\n${post.body}`.slice(0, 2000), batchId: post.batchId ?? undefined });
  return { ...answer, postId };
}
