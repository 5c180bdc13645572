import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { createGoal } from '../../shared/tools/goals.js';
import type { ToolContext } from './tool-context.js';
import { resultOf } from './reply.js';

export function startGoal(args: ToolArgs<typeof createGoal>, { state }: ToolContext): string {
  const goal = resultOf(state.goals.create(args.condition, args.max_turns));
  return JSON.stringify({
    goal_id: goal.goal_id,
    status: goal.status,
    max_turns: goal.max_turns,
    note: 'After this turn the session keeps going on its own until you call completeGoal or cancelGoal, or the turns run out.',
  });
}

export function endGoal(goalId: string, status: 'completed' | 'cancelled', { state }: ToolContext): string {
  const goal = resultOf(state.goals.end(goalId, status));
  return JSON.stringify({ goal_id: goal.goal_id, status: goal.status, completed_turns: goal.completed_turns });
}
