import { hasChange } from './session-changes.js';
import type { SessionState } from './session-state.js';
import { budgetRefusal } from './tree-budget.js';
import { hasLimits } from './usage-ledger.js';

/**
 * Why the session may not make a summary call now (its budget, or its tree's, is spent), or null. The same check as
 * before a model call. A session with no budget and drawing from no root asks nothing (no patch, no command): its
 * check could only say yes.
 */
export async function summaryBudgetRefusal(state: SessionState): Promise<string | null> {
  const ledger = state.usage;
  if (!ledger.drawsFromRoot && !hasLimits(ledger.budget)) return null;
  if (!hasChange('summary-calls-checked-against-budget')) return null;
  return budgetRefusal(state);
}
