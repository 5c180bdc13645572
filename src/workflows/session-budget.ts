import type { SessionInput } from '../shared/session.js';
import type { SessionState } from './session-state.js';

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
 * unattended session does not run refused turns for ever. Cron jobs stay; each firing ends at once with the same notice.
 * The reason stays in the snapshot (`usage.budget_stop`) until the budget is raised.
 */
export function stopForBudget(state: SessionState): void {
  for (const goal of state.goals.active()) state.goals.end(goal.goal_id, 'cancelled');
  for (const loop of state.loops.live()) state.loops.end(loop.loop_id, 'cancelled', 'the budget is spent');
}
