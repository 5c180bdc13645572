import { condition, getExternalWorkflowHandle } from '@temporalio/workflow';
import { budgetGrantSignal, drawFromRootSignal, treeUsageSignal } from '../shared/messages.js';
import type { BudgetChange, BudgetState } from '../shared/usage.js';
import type { SessionState } from './session-state.js';
import { hasChange } from './session-changes.js';

/** How long a member waits for its root's answer to an allowance request before its turn ends without the call. */
const grantWaitTimeout = '2 minutes';

/**
 * Why the session may not make its next model call, or null. A root checks its tree's budget (its own and its
 * members' reported spending, and the allowances members hold). A member of a budgeted tree spends an allowance from
 * its root: once it is used up, it reports its spending and asks for more (two signals), and waits for the answer.
 * Issues no command in a session without a budget that draws from no root, which every session before budgets is.
 * Answered at once (no promise, which the SDK would capture a stack trace for) unless the root must be asked.
 */
export function budgetRefusal(state: SessionState): string | null | Promise<string | null> {
  const ledger = state.usage;
  const own = ledger.ownRefusal();
  if (own !== null || !ledger.drawsFromRoot || state.isRoot() || ledger.hasAllowance()) return own;
  return askRootForAllowance(state);
}

async function askRootForAllowance(state: SessionState): Promise<string | null> {
  const ledger = state.usage;
  const requestId = ledger.newRequestId();
  try {
    await getExternalWorkflowHandle(state.identity.root_session_id).signal(treeUsageSignal, {
      session_id: state.identity.session_id,
      usage: ledger.own,
      request_id: requestId,
    });
  } catch {
    return 'The tree budget cannot be checked: the root session has ended. No model call was made.';
  }
  if (!(await condition(() => ledger.hasGrant(requestId), grantWaitTimeout)))
    return 'The tree budget cannot be checked: the root session did not answer within 2 minutes. No model call was made.';
  return ledger.takeGrant(requestId)?.refusal ?? null;
}

/**
 * A sub-agent that spent tells its root its final totals as it ends (a member of a budgeted tree frees its allowance).
 * Undefined, not a promise, when there is nothing to tell.
 */
export function reportFinalUsage(state: SessionState): Promise<void> | undefined {
  if (state.isRoot() || (state.usage.own.calls === 0 && !state.usage.drawsFromRoot)) return undefined;
  return getExternalWorkflowHandle(state.identity.root_session_id)
    .signal(treeUsageSignal, { session_id: state.identity.session_id, usage: state.usage.own, final: true })
    .catch(() => {
      // The root has ended; nobody counts the tree any more.
    });
}

/** Handles a member's report at the root: its totals are counted, and a request for an allowance is answered. */
export async function answerUsageReport(state: SessionState, report: Parameters<SessionState['usage']['report']>[0]): Promise<void> {
  const grant = state.usage.report(report);
  if (!grant) return;
  try {
    await getExternalWorkflowHandle(report.session_id).signal(budgetGrantSignal, grant);
  } catch {
    // The member has ended meanwhile.
  }
}

/**
 * The `setBudget` update. A root whose tree had no budget, given one while sub-agents run, tells them to draw from it
 * (they were started without `draws_from_root`): from their next model call they ask it for allowances, reporting
 * what they spent so far, so the budget counts the whole tree.
 */
export function setBudget(state: SessionState, change: BudgetChange): BudgetState {
  const hadBudget = state.usage.treeHasBudget();
  const budget = state.usage.setBudget(change);
  if (state.isRoot() && !hadBudget && state.usage.treeHasBudget())
    tellRunningSubAgentsToDraw(state, 'tree-budget-reaches-running-sub-agents');
  return budget;
}

/**
 * `drawFromRoot` at a sub-agent: it draws from its root from now on, tells the root what it has spent so far (so the
 * root's allowances count it before this session next asks), and tells its own running sub-agents to draw too.
 */
export function drawFromRoot(state: SessionState): void {
  if (state.isRoot() || state.usage.drawsFromRoot) return;
  state.usage.drawsFromRoot = true;
  tellRunningSubAgentsToDraw(state);
  if (state.usage.own.calls === 0) return;
  const report = { session_id: state.identity.session_id, usage: state.usage.own };
  getExternalWorkflowHandle(state.identity.root_session_id)
    .signal(treeUsageSignal, report)
    .catch(() => undefined);
}

/** Signals each running sub-agent; at a root, only where the change applies (see `tree-budget-reaches-running-sub-agents`). */
function tellRunningSubAgentsToDraw(state: SessionState, change?: 'tree-budget-reaches-running-sub-agents'): void {
  const running = state.runningChildren();
  if (running.length === 0 || (change && !hasChange(change))) return;
  for (const child of running) {
    // A sub-agent that has ended meanwhile has nothing more to draw.
    getExternalWorkflowHandle(child.sub_session_id)
      .signal(drawFromRootSignal)
      .catch(() => undefined);
  }
}
