import type { AutoAnswerVerdict, Thresholds } from './shape.js';

/** The spec's triage, as a pure function: sensitive text escalates whatever the confidence. */

/** >= approve: approved (auto_approve); >= suggest: suggested (queue_review); below: escalated. */
export function triage(confidence: number | null, sensitive: boolean, t: Thresholds): AutoAnswerVerdict {
  if (sensitive || confidence === null || !Number.isFinite(confidence)) return 'escalated';
  if (confidence >= t.approve) return 'approved';
  if (confidence >= t.suggest) return 'suggested';
  return 'escalated';
}

/** Spec constants. */
export const KNOWLEDGE_MATCH_MULTIPLIER = 0.9;
export const GENERATED_CONFIDENCE = 0.62;
export const KNOWLEDGE_TOP_K = 3;
export const CONTEXT_FAQS = 3;
/** Bumped whenever the prompts below change; recorded in every PipelineResult. */
export const PROMPT_VERSION = 'auto-answer/2026-11-23.1';
