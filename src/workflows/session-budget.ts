import type { InboxMessage, SessionInput } from '../shared/session.js';
import type { SessionState } from './session-state.js';
import { hasChange } from './session-changes.js';

/** A new session's limits (a root's for its tree, a sub-agent's for its own calls) and whether it draws from its root. */
export function takeBudget(state: SessionState, input: SessionInput): void {
  const ledger = state.usage;
  ledger.budget = {
    ...(input.max_tokens !== undefined ? { max_tokens: input.max_tokens } : {}),
    ...(input.max_cost_usd !== undefined ? { max_cost_usd: input.max_cost_usd } : {}),
  };
  ledger.drawsFromRoot = input.draws_from_root === true && !state.isRoot();
}

/**
 * The budget ended a turn: goals stop driving turns (cancelled) and loops stop firing (ended with the reason), so an
 * unattended session does not run refused turns for ever. Cron jobs stay, their firings held (see `heldByBudget`).
 * The reason stays in the snapshot (`usage.budget_stop`) until the budget is raised.
 */
export function stopForBudget(state: SessionState): void {
  for (const goal of state.goals.active()) state.goals.end(goal.goal_id, 'cancelled');
  for (const loop of state.loops.live()) state.loops.end(loop.loop_id, 'cancelled', 'the budget is spent');
}

/**
 * Whether a firing is held back by a spent budget: a cron job's firing while the session's budget is spent (at a root,
 * its tree's, checked now; in a sub-agent, as its last turn was refused) starts no turn, so no model call is asked for,
 * and the budget stops the session as a refused turn would. The first held firing says so in a notice; later ones say
 * nothing until the budget is raised or a call is made. The job itself stays and fires again as scheduled.
 */
export function heldByBudget(state: SessionState, message: InboxMessage): boolean {
  if (message.source !== 'cron') return false;
  const ledger = state.usage;
  const refusal = state.isRoot() ? ledger.ownRefusal() : ledger.budgetStop;
  if (refusal === null || !hasChange('cron-held-at-spent-budget')) return false;
  if (ledger.budgetStop === null) {
    ledger.budgetStop = refusal;
    stopForBudget(state);
  }
  if (ledger.holdFiring()) {
    const firing = message.content.match(/^\[[^\]]*\]/)?.[0] ?? 'A cron job';
    state.append({
      role: 'notice',
      content: `${firing} fired while the budget is spent: no turn was started, and cron firings are held, without another notice, until the budget is raised. ${refusal}`,
      turn: state.turn,
    });
  }
  return true;
}
