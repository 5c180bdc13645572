import type { ToolOutcome } from './dispatch.js';

/**
 * Characters all tool results of one round may take together. Each result is already bounded (100,000 characters),
 * but one answer may ask for dozens of calls; their results all go into the next model call, whose input must stay
 * under Temporal's 2 MB payload limit, or the session could never call the model again.
 */
export const roundResultBudget = 1_000_000;

/** Cuts a round's results to share the budget: results under an equal share keep their text, the rest share what is left. */
export function shareRoundBudget(outcomes: ToolOutcome[], budget = roundResultBudget): ToolOutcome[] {
  const total = outcomes.reduce((sum, outcome) => sum + outcome.content.length, 0);
  if (total <= budget) return outcomes;
  const bySize = [...outcomes].sort((a, b) => a.content.length - b.content.length);
  let left = budget;
  let share = 0;
  for (const [index, outcome] of bySize.entries()) {
    share = Math.floor(left / (outcomes.length - index));
    if (outcome.content.length > share) break;
    left -= outcome.content.length;
  }
  return outcomes.map((outcome) => {
    if (outcome.content.length <= share) return outcome;
    const note = `\n[truncated: ${outcome.content.length - share} more characters; this round's ${outcomes.length} tool results share ${budget} characters]`;
    return { ...outcome, content: outcome.content.slice(0, Math.max(0, share - note.length)) + note };
  });
}
