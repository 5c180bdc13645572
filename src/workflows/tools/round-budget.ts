import { sliceToUtf8Bytes, utf8Length } from '../../shared/utf8.js';
import type { ToolOutcome } from './dispatch.js';

/**
 * Bytes (UTF-8) all tool results of one round may take together. Each result is already bounded (100,000
 * characters), but one answer may ask for dozens of calls; their results all go into the next model call, whose input
 * must stay under Temporal's 2 MB payload limit, or the session could never call the model again. Counted in bytes: a
 * character of Chinese takes three.
 */
export const roundResultBudget = 1_000_000;

/** Cuts a round's results to share the budget: results under an equal share keep their text, the rest share what is left. */
export function shareRoundBudget(outcomes: ToolOutcome[], budget = roundResultBudget): ToolOutcome[] {
  const sizes = outcomes.map((outcome) => utf8Length(outcome.content));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= budget) return outcomes;
  const bySize = [...sizes].sort((a, b) => a - b);
  let left = budget;
  let share = 0;
  for (const [index, size] of bySize.entries()) {
    share = Math.floor(left / (outcomes.length - index));
    if (size > share) break;
    left -= size;
  }
  return outcomes.map((outcome, index) => {
    const size = sizes[index]!;
    if (size <= share) return outcome;
    const note = `\n[truncated: ${size - share} more bytes; this round's ${outcomes.length} tool results share ${budget} bytes]`;
    return { ...outcome, content: sliceToUtf8Bytes(outcome.content, Math.max(0, share - note.length)) + note };
  });
}
