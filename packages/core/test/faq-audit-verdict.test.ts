import { type Config, judgeWithAi, judgeWithoutContext, loadConfig, verdictForScore } from '@cfaq/core';
import { describe, expect, it } from 'vitest';

// Moved from apps/api/test/faq-audit.test.ts: the verdict table is pure core.
const NOW = new Date('2026-06-01T12:00:00Z');
const DAY = 86_400_000;
const cfg = loadConfig({}) as Config;

describe('the verdict table at its boundaries (defaults)', () => {
  it('0.80 correct, just below drift_detected, 0.60 drift_detected, just below contradiction', () => {
    expect(cfg.FAQ_AUDIT_FLAG_THRESHOLD).toBe(0.8);
    expect(verdictForScore(cfg, 0.8)).toBe('correct');
    expect(verdictForScore(cfg, 0.7999)).toBe('drift_detected');
    expect(verdictForScore(cfg, 0.6)).toBe('drift_detected');
    expect(verdictForScore(cfg, 0.5999)).toBe('contradiction');
    const none = { corroborating: 0, newer: 0 };
    expect(judgeWithAi(cfg, { score: 0.8, confidence: 0.9 }, none)).toMatchObject({ verdict: 'correct', flagged: false });
    expect(judgeWithAi(cfg, { score: 0.79, confidence: 0.9 }, none)).toMatchObject({ verdict: 'drift_detected', flagged: true });
    expect(judgeWithAi(cfg, { score: 0.59, confidence: 0.9 }, none)).toMatchObject({ verdict: 'contradiction', flagged: true });
  });

  it('AI confidence below 0.35 is skipped (not flagged) whatever the score; 0.35 is judged', () => {
    const none = { corroborating: 0, newer: 0 };
    expect(judgeWithAi(cfg, { score: 0.1, confidence: 0.3499 }, none)).toMatchObject({ verdict: 'skipped', flagged: false });
    expect(judgeWithAi(cfg, { score: 0.1, confidence: 0.35 }, none)).toMatchObject({ verdict: 'contradiction', flagged: true });
  });

  it('no context: stale when older than FAQ_AUDIT_STALE_DAYS and never verified; otherwise skipped', () => {
    const old = new Date(NOW.getTime() - 180 * DAY);
    expect(judgeWithoutContext(cfg, { publishedAt: old, neverVerified: true }, NOW)).toMatchObject({ verdict: 'stale', flagged: true });
    expect(judgeWithoutContext(cfg, { publishedAt: new Date(old.getTime() + 1), neverVerified: true }, NOW).verdict).toBe('skipped');
    expect(judgeWithoutContext(cfg, { publishedAt: old, neverVerified: false }, NOW)).toMatchObject({ verdict: 'skipped', flagged: false });
  });

  it("FAQ_AUDIT_FLAG_THRESHOLD, when set, moves the correct/drift boundary (the spec's 0.65 reading)", () => {
    const c = { ...cfg, FAQ_AUDIT_FLAG_THRESHOLD: 0.65 };
    expect(verdictForScore(c, 0.65)).toBe('correct');
    expect(verdictForScore(c, 0.6499)).toBe('drift_detected');
    expect(() => loadConfig({ FAQ_AUDIT_FLAG_THRESHOLD: '0.5' })).toThrow(/FAQ_AUDIT_CONTRADICTION_THRESHOLD/);
  });

  it('insights: corroborating approved ones raise confidence; newer ones turn correct into drift', () => {
    expect(judgeWithAi(cfg, { score: 0.9, confidence: 0.7 }, { corroborating: 2, newer: 0 })).toMatchObject({
      verdict: 'correct',
      confidence: expect.closeTo(0.8, 5),
    });
    expect(judgeWithAi(cfg, { score: 0.9, confidence: 0.7 }, { corroborating: 0, newer: 1 })).toMatchObject({
      verdict: 'drift_detected',
      flagged: true,
    });
  });
});
