import type { AutoAnswerVerdict, Thresholds } from './shape.js';

/** The spec's triage, as a pure function: sensitive text escalates whatever the confidence. */

/** >= approve: approved (auto_approve); >= suggest: suggested (queue_review); below: escalated. */
export function triage(confidence: number | null, sensitive: boolean, t: Thresholds): AutoAnswerVerdict {
  if (sensitive || confidence === null || !Number.isFinite(confidence)) return 'escalated';
  if (confidence >= t.approve) return 'approved';
  if (confidence >= t.suggest) return 'suggested';
  return 'escalated';
}

/**
 * triage for a knowledge match whose sources the model said do not answer the question (`doubted`):
 * the source text is no answer to publish on its own, whatever the match scored; an admin decides
 * (suggested at most). The run and the threshold what-if both decide this way.
 */
export function triageMatch(confidence: number | null, sensitive: boolean, doubted: boolean, t: Thresholds): AutoAnswerVerdict {
  const verdict = triage(confidence, sensitive, t);
  return doubted && verdict === 'approved' ? 'suggested' : verdict;
}

/** Spec constants. */
export const KNOWLEDGE_MATCH_MULTIPLIER = 0.9;
export const GENERATED_CONFIDENCE = 0.62;
export const KNOWLEDGE_TOP_K = 3;
export const CONTEXT_FAQS = 3;
/** Bumped whenever the prompts below change; recorded in every PipelineResult. */
export const PROMPT_VERSION = 'auto-answer/2026-11-28.1';
