import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const goalStatuses = ['active', 'completed', 'cancelled', 'exhausted'] as const;
export type GoalStatus = (typeof goalStatuses)[number];
export const defaultGoalTurns = 50;
export const maxActiveGoals = 5;

const goalId = () => z.string().trim().min(1).max(40).describe('The goal_id createGoal returned');

export const createGoal = defineTool({
  name: 'createGoal',
  description:
    'Set an autonomous goal: after each turn, while the goal is active, the session starts the next turn by itself with ' +
    'a message restating the condition, until you call completeGoal (the condition is met), cancelGoal, or max_turns ' +
    'turns have passed. A message from the user always comes first.',
  input: () =>
    z.object({
      condition: z
        .string()
        .trim()
        .min(1, 'condition is empty')
        .max(2_000)
        .describe('What must be true for the goal to be met, checkable by you'),
      max_turns: z
        .number()
        .int()
        .min(1)
        .max(1_000)
        .default(defaultGoalTurns)
        .describe(`Most turns the goal may drive (default ${defaultGoalTurns})`),
    }),
});

export const completeGoal = defineTool({
  name: 'completeGoal',
  description: 'Mark a goal as met: the session stops driving turns for it.',
  input: () => z.object({ goal_id: goalId() }),
});

export const cancelGoal = defineTool({
  name: 'cancelGoal',
  description: 'Cancel a goal that cannot or should no longer be met: the session stops driving turns for it.',
  input: () => z.object({ goal_id: goalId() }),
});

export interface Goal {
  goal_id: string;
  condition: string;
  max_turns: number;
  completed_turns: number;
  status: GoalStatus;
  created_at: string;
  updated_at: string;
}
