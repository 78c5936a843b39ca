import { faqs } from '@cfaq/db/schema/index';
import { type Static, Type as T } from '@sinclair/typebox';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { generateStructured } from '../ai/generate.js';
import type { ResolvedAi } from '../ai/settings.js';
import type { CoreContext } from '../context.js';
import { searchKnowledge } from '../knowledge/search.js';
import type { KnowledgeHit } from '../knowledge/shape.js';
import { hasVisibleText } from '../shared/text.js';
import type { SensitiveMatcher } from './sensitive.js';
import type { AutoAnswerVerdict, Thresholds } from './shape.js';
import {
  CONTEXT_FAQS,
  GENERATED_CONFIDENCE,
  KNOWLEDGE_MATCH_MULTIPLIER,
  KNOWLEDGE_TOP_K,
  PROMPT_VERSION,
  triage,
  triageMatch,
} from './triage.js';

/**
 * One post through the spec's steps, without writing anything: knowledge search (top 3; a match at
 * AUTO_ANSWER_KNOWLEDGE_MIN_SCORE or above gives confidence = score x 0.9 and an answer grounded in it,
 * source faq_knowledge), else generation with the three most recent approved FAQs of the program as
 * context (confidence 0.62, source ai_generated), sensitive text escalated whatever the confidence,
 * then triage. A knowledge-search failure falls back to generation; on the generation path no provider
 * or a failed call escalates with the reason. A knowledge match needs no provider (the spec's step 1):
 * without one, or when the call fails, its answer is the source's own text. Nothing is ever invented.
 * When the model declines to answer from the sources (`answerable: false`, or the provider refuses),
 * the source text is kept but suggested at most: it is no answer to publish on its own.
 */
export interface PostInput {
  id: string;
  batchId: string;
  title: string;
  body: string;
}

export interface Decision {
  postId: string;
  title: string;
  batchId: string;
  verdict: AutoAnswerVerdict;
  confidence: number | null;
  answer: string | null;
  source: 'faq_knowledge' | 'ai_generated' | null;
  sources: string[];
  /** Why the verdict is not approved (staff-only), or null. */
  reason: string | null;
  /** Top knowledge similarity (PipelineResult.score). */
  score: number | null;
  metadata: Record<string, unknown>;
}

export interface DecideOptions {
  thresholds: Thresholds;
  sensitive: SensitiveMatcher;
  resolved: ResolvedAi;
  /** A dry run decides without calling a provider (and writes nothing). */
  dryRun: boolean;
}

// `answer` may be empty when answerable is false (the natural refusal, `{"answer":"","answerable":false}`,
// must validate: failing it would count as a provider failure, which publishes the source text); when
// answerable is true a blank answer is malformed (groundedCheck), a failed attempt like a schema error.
const GroundedAnswer = T.Object({
  answer: T.String({ maxLength: 4000, description: 'the answer to the question, from the sources only' }),
  answerable: T.Boolean({ description: 'false when the sources do not answer the question' }),
});
const groundedCheck = (v: Static<typeof GroundedAnswer>): string | null =>
  v.answerable && !hasVisibleText(v.answer) ? '/answer: must not be blank when answerable is true' : null;
const GeneratedAnswer = T.Object({
  answer: T.String({ maxLength: 4000, description: 'a helpful answer, or empty when you cannot answer' }),
  answerable: T.Boolean({ description: 'false when you cannot answer reliably' }),
});

const SYSTEM_GROUNDED =
  'You answer questions in a community FAQ. Answer ONLY from the knowledge sources given. Be concise and friendly (at most 150 words). ' +
  'If the sources do not answer the question, set answerable to false. Never invent facts, links or numbers.';
const SYSTEM_GENERATED =
  'You answer questions in a community FAQ. Use the approved FAQs given as context where they apply. Be concise and friendly (at most 150 words). ' +
  'If you cannot answer reliably, set answerable to false and leave answer empty. Never invent facts, links, prices or dates.';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

async function recentFaqs(ctx: Pick<CoreContext, 'db'>, batchId: string) {
  return ctx.db
    .select({ id: faqs.id, question: faqs.question, answer: faqs.answer })
    .from(faqs)
    .where(and(eq(faqs.batchId, batchId), inArray(faqs.reviewStatus, ['approved', 'verified'])))
    .orderBy(desc(faqs.createdAt), desc(faqs.id))
    .limit(CONTEXT_FAQS);
}

export async function decidePost(ctx: CoreContext, post: PostInput, opts: DecideOptions): Promise<Decision> {
  const query = `${post.title}\n\n${post.body}`.trim();
  const minScore = ctx.config.AUTO_ANSWER_KNOWLEDGE_MIN_SCORE;
  const meta: Record<string, unknown> = { promptVersion: PROMPT_VERSION, thresholds: opts.thresholds };
  const base = { postId: post.id, title: post.title, batchId: post.batchId };

  const sensitiveHit = opts.sensitive.match(query);
  if (sensitiveHit) meta.sensitive = sensitiveHit;

  const hits: KnowledgeHit[] | null = await searchKnowledge(ctx, { query, batchId: post.batchId, k: KNOWLEDGE_TOP_K });
  meta.knowledgeSearch = hits === null ? 'failed' : 'ok';
  meta.similarities = (hits ?? []).map((h) => ({ id: h.id, sourceType: h.sourceType, score: h.score }));
  const score = hits?.[0]?.score ?? null;
  const match = hits?.find((h) => h.score >= minScore) ?? null;
  const choice = opts.resolved.choose('auto_answer');
  meta.provider = choice.provider;
  meta.model = choice.model;

  if (match) {
    const confidence = match.score * KNOWLEDGE_MATCH_MULTIPLIER;
    const grounding = (hits ?? []).filter((h) => h.score >= minScore);
    const sources = grounding.map((h) => h.id);
    let answer = clip(match.content, 4000);
    let refused = false;
    meta.answerFrom = 'source_text';
    // The spec's knowledge step needs no provider: the match gives the confidence, and its own text is
    // an answer grounded in it, verbatim (nothing invented). A provider, when one is configured, only
    // writes that answer from the matching sources; without one, or when its call fails after its
    // retries, the source text stands, triaged at the match's confidence, and the result says why
    // (providerError). Sensitive posts never leave the system, so they keep the source text as well.
    if (!sensitiveHit && !choice.configured) meta.providerError = choice.reason;
    if (!sensitiveHit && !opts.dryRun && choice.configured) {
      const r = await generateStructured(ctx, {
        pipeline: 'auto_answer',
        batchId: post.batchId,
        schema: GroundedAnswer,
        check: groundedCheck,
        schemaName: 'grounded_answer',
        system: SYSTEM_GROUNDED,
        prompt: `Question: ${clip(query, 4000)}\n\nKnowledge sources:\n${grounding
          .map((h, i) => `[${i + 1}] ${h.title}\n${clip(h.content, 3000)}`)
          .join('\n\n')}`,
        resolved: opts.resolved,
      });
      meta.attempts = r.ok || r.outcome === 'failed' ? r.attempts : 0;
      if (r.ok) {
        meta.tokens = r.usage;
        meta.latencyMs = r.latencyMs;
        if (r.value.answerable && hasVisibleText(r.value.answer)) {
          answer = r.value.answer.trim();
          meta.answerFrom = 'provider';
        } else meta.providerNote = 'the model found the sources insufficient; the source text is kept for review';
      } else if (r.outcome === 'failed' && r.failure === 'refused') {
        // A refusal is the model declining, like answerable: false, not a failure: the source text is
        // kept for review and never published on its own (a failure would publish it).
        refused = true;
        meta.tokens = r.usage;
        meta.failure = r.failure;
        meta.providerNote = `the provider refused to answer from the sources; the source text is kept for review (${r.reason})`;
      } else {
        meta.providerError = r.reason;
        if (r.outcome === 'failed') Object.assign(meta, { tokens: r.usage, failure: r.failure });
      }
    }
    const triaged = triage(confidence, !!sensitiveHit, opts.thresholds);
    // The model read the sources and said they do not answer the question, or refused (triageMatch;
    // the threshold what-if reads providerNote the same way).
    const doubted = meta.providerNote !== undefined;
    const verdict = triageMatch(confidence, !!sensitiveHit, doubted, opts.thresholds);
    return {
      ...base,
      verdict,
      confidence,
      answer,
      source: 'faq_knowledge',
      sources,
      score,
      reason: sensitiveHit
        ? `sensitive topic: ${sensitiveHit.topic}`
        : doubted && triaged === 'approved'
          ? refused
            ? 'the provider refused to answer from the knowledge sources; held for review'
            : 'the model found the knowledge sources insufficient to answer; held for review'
          : verdict === 'approved'
            ? null
            : `knowledge match at ${confidence.toFixed(2)} confidence is below the ${verdict === 'suggested' ? 'approve' : 'suggest'} threshold`,
      metadata: meta,
    };
  }

  // No semantic match: generation (or escalation when it cannot or must not happen).
  const escalate = (reason: string): Decision => ({
    ...base,
    verdict: 'escalated',
    confidence: null,
    answer: null,
    source: null,
    sources: [],
    score,
    reason,
    metadata: { ...meta, reason },
  });
  const prefix = hits === null ? 'knowledge search failed; ' : '';
  if (sensitiveHit) return escalate(`${prefix}sensitive topic: ${sensitiveHit.topic}`);
  if (!choice.configured) return escalate(`${prefix}${choice.reason}`);
  const context = await recentFaqs(ctx, post.batchId);
  meta.contextFaqs = context.map((f) => f.id);
  if (opts.dryRun) {
    meta.dryRunGeneration = 'not called in a dry run';
    const verdict = triage(GENERATED_CONFIDENCE, false, opts.thresholds);
    return {
      ...base,
      verdict,
      confidence: GENERATED_CONFIDENCE,
      answer: null,
      source: 'ai_generated',
      sources: [],
      score,
      reason: verdict === 'approved' ? null : `${prefix}generated answer (confidence ${GENERATED_CONFIDENCE}) needs review`,
      metadata: meta,
    };
  }
  const r = await generateStructured(ctx, {
    pipeline: 'auto_answer',
    batchId: post.batchId,
    schema: GeneratedAnswer,
    schemaName: 'answer',
    system: SYSTEM_GENERATED,
    prompt: `Question: ${clip(query, 4000)}\n\nApproved FAQs:\n${
      context.length ? context.map((f, i) => `[${i + 1}] Q: ${f.question}\nA: ${clip(f.answer, 2000)}`).join('\n\n') : '(none)'
    }`,
    resolved: opts.resolved,
  });
  if (!r.ok) {
    if (r.outcome === 'failed') Object.assign(meta, { attempts: r.attempts, tokens: r.usage, latencyMs: r.latencyMs, failure: r.failure });
    return escalate(`${prefix}${r.reason}`);
  }
  Object.assign(meta, { attempts: r.attempts, tokens: r.usage, latencyMs: r.latencyMs });
  if (!r.value.answerable || !hasVisibleText(r.value.answer)) return escalate(`${prefix}the model could not answer reliably`);
  const verdict = triage(GENERATED_CONFIDENCE, false, opts.thresholds);
  return {
    ...base,
    verdict,
    confidence: GENERATED_CONFIDENCE,
    answer: r.value.answer.trim(),
    source: 'ai_generated',
    sources: [],
    score,
    reason: verdict === 'approved' ? null : `${prefix}generated answer (confidence ${GENERATED_CONFIDENCE}) needs review`,
    metadata: meta,
  };
}
