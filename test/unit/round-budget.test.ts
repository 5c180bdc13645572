import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../src/shared/utf8.js';
import { shareRoundBudget } from '../../src/workflows/tools/round-budget.js';

const result = (length: number, is_error = false) => ({ content: 'x'.repeat(length), is_error });

describe('shareRoundBudget', () => {
  it('leaves a round under the budget as it is', () => {
    const outcomes = [result(400), result(500)];
    expect(shareRoundBudget(outcomes, 1_000)).toBe(outcomes);
  });

  it('keeps small results whole and cuts the large ones to share what is left, saying so', () => {
    const shared = shareRoundBudget([result(100), result(5_000), result(50), result(9_000, true)], 2_000);
    expect(shared[0]!.content).toBe('x'.repeat(100));
    expect(shared[2]!.content).toBe('x'.repeat(50));
    for (const cut of [shared[1]!, shared[3]!]) {
      expect(cut.content.length).toBeLessThanOrEqual(925);
      expect(cut.content).toMatch(/\[truncated: \d+ more bytes; this round's 4 tool results share 2000 bytes\]$/);
    }
    expect(shared[3]!.is_error).toBe(true);
    expect(shared.reduce((sum, outcome) => sum + outcome.content.length, 0)).toBeLessThanOrEqual(2_000);
  });

  it('bounds 45 results of 50,000 characters to one model input under the payload limit', () => {
    const shared = shareRoundBudget(Array.from({ length: 45 }, () => result(50_000)));
    expect(shared.reduce((sum, outcome) => sum + outcome.content.length, 0)).toBeLessThanOrEqual(1_000_000);
  });

  it('counts bytes, so results in Chinese, three bytes a character, still fit the model input', () => {
    const shared = shareRoundBudget(Array.from({ length: 12 }, () => ({ content: '网页内容'.repeat(25_000), is_error: false })));
    expect(shared.reduce((sum, outcome) => sum + utf8Length(outcome.content), 0)).toBeLessThanOrEqual(1_000_000);
    for (const outcome of shared)
      expect(outcome.content).toMatch(
        /^(网页内容)+网?页?内?\n\[truncated: \d+ more bytes; this round's 12 tool results share 1000000 bytes\]$/,
      );
  });
});
