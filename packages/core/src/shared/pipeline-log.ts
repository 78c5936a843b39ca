import type { Logger } from '../runtime/logger.js';

/** One step of a pipeline, as the spec's log line names it. */
export interface PipelineStep {
  /** The step: auto_answer, faq_audit, escalation, freshness_vote, promotion_nominate, conf_ingest... */
  action: string;
  /** The row the step is about (post, FAQ, meeting). */
  id: string;
  /** The step's confidence; null (written `-`) where the step has none. */
  conf: number | null;
  verdict: string;
  /** Further facts, written `key=value` after the verdict and kept as fields. */
  extra?: Record<string, string | number | boolean | undefined>;
}

/**
 * The spec's structured line for each pipeline step (Events: "[pipeline] action id=... conf=...
 * verdict=..."), the same for every pipeline so one grep or log query follows them all; the facts are
 * fields of the log object too.
 */
export function logPipelineStep(log: Pick<Logger, 'info'> | undefined, step: PipelineStep): void {
  const extra = Object.entries(step.extra ?? {}).filter(([, v]) => v !== undefined);
  const conf = step.conf === null ? '-' : Number(step.conf.toFixed(3));
  log?.info(
    { pipeline: step.action, id: step.id, conf: step.conf, verdict: step.verdict, ...Object.fromEntries(extra) },
    `[pipeline] ${step.action} id=${step.id} conf=${conf} verdict=${step.verdict}${extra.map(([k, v]) => ` ${k}=${v}`).join('')}`,
  );
}
