import { describe, expect, it } from 'vitest';
import { logPipelineStep } from '../src/shared/pipeline-log.js';

describe('pipeline step log line', () => {
  it('has the spec form "[pipeline] action id=... conf=... verdict=...", extras after it and as fields', () => {
    const lines: [Record<string, unknown>, string][] = [];
    const log = { info: (obj: Record<string, unknown>, msg: string) => lines.push([obj, msg]) };
    logPipelineStep(log as never, { action: 'auto_answer', id: 'p1', conf: 0.87654, verdict: 'approved', extra: { dry_run: undefined } });
    logPipelineStep(log as never, { action: 'escalation', id: 'p2', conf: null, verdict: 'escalated', extra: { not_answering: 3 } });
    expect(lines.map(([, msg]) => msg)).toEqual([
      '[pipeline] auto_answer id=p1 conf=0.877 verdict=approved',
      '[pipeline] escalation id=p2 conf=- verdict=escalated not_answering=3',
    ]);
    expect(lines[1]?.[0]).toEqual({ pipeline: 'escalation', id: 'p2', conf: null, verdict: 'escalated', not_answering: 3 });
  });
});
